#!/usr/bin/env python3
"""The man pages render with scdoc, and veil(5) names every word the command parser accepts.

check-man.py SCDOC MANDIR --words FILE... --fields FILE...

Each man/*.scd renders with scdoc (with @LIBEXECDIR@ filled in, as meson does) to a page that
has a NAME section. The words are read from the parser's sources (--words: module/meson.build's
veil_words_sources, the files veilctl and the command fuzzer build the parser from): every string
literal the parser compares a word with (strcmp/strcasecmp(word, "literal")), and the names of
its keyword tables ({ "off", VEIL_COMMAND_OFF }) and name arrays ([VEIL_MODE_FILL] = "fill").
The status members are the keys the status code adds to its JSON objects (--fields:
json_object_object_add(obj, "key", ...)). Each must appear in the rendered veil(5) as a word.
"""
import os
import re
import subprocess
import sys


def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    return re.sub(r'//[^\n]*', ' ', text)


def parser_words(paths):
    words = {}
    patterns = [
        # strcmp(x, "w"), strcasecmp(x, "w"), strncmp(x, "w", n)
        r'\bstr(?:n)?(?:case)?cmp\s*\([^;"()]*,\s*"([^"\\]+)"\s*[,)]',
        # { "w", VEIL_... } keyword tables
        r'\{\s*"([^"\\]+)"\s*,\s*VEIL_\w+\s*\}',
        # [VEIL_...] = "w" name arrays
        r'\[\s*VEIL_\w+\s*\]\s*=\s*"([^"\\]+)"',
    ]
    for path in paths:
        text = strip_comments(open(path, encoding='utf-8').read())
        for pattern in patterns:
            for m in re.finditer(pattern, text):
                words.setdefault(m.group(1).lower(), set()).add(os.path.basename(path))
    return words


def status_fields(paths):
    fields = {}
    for path in paths:
        text = strip_comments(open(path, encoding='utf-8').read())
        # A show's part of the status is added under its impl's key (module/show/show.c).
        for m in re.finditer(r'json_object_object_add\s*\(\s*\w+\s*,\s*"([^"\\]+)"|'
                             r'\.key\s*=\s*"([^"\\]+)"', text):
            fields.setdefault(m.group(1) or m.group(2), set()).add(os.path.basename(path))
    return fields


def render(scdoc, path):
    text = open(path, encoding='utf-8').read().replace('@LIBEXECDIR@', '/usr/libexec')
    r = subprocess.run([scdoc], input=text, capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def plain(roff):
    """The words of a roff page: font changes, escapes and requests taken out."""
    text = re.sub(r'\\f[BIRP]|\\f\(..|\\f\[[^]]*\]', '', roff)
    text = re.sub(r'\\\(..|\\\[[^]]*\]', ' ', text)
    text = re.sub(r'\\[&-]', lambda m: '-' if m.group(0) == '\\-' else '', text)
    text = re.sub(r'^\.[A-Za-z]+.*$', ' ', text, flags=re.M)
    return text


def main():
    args = sys.argv[1:]
    scdoc, mandir = args[0], args[1]
    words_at, fields_at = args.index('--words'), args.index('--fields')
    word_files = args[words_at + 1:fields_at]
    field_files = args[fields_at + 1:]
    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        print(('ok: ' if ok else 'FAIL: ') + what)
        if ok:
            passed += 1
        else:
            failed += 1

    pages = sorted(f for f in os.listdir(mandir) if f.endswith('.scd'))
    check(len(pages) == 3, f'three man pages in {mandir}: {", ".join(pages)}')
    rendered = {}
    for page in pages:
        rc, out, err = render(scdoc, os.path.join(mandir, page))
        check(rc == 0 and ('.SH "NAME"' in out or '.SH NAME' in out),
              f'{page} renders with scdoc{": " + err.strip() if rc != 0 else ""}')
        rendered[page] = plain(out)

    text = rendered.get('veil.5.scd', '')
    # Words as the parser takes them: letters, '_' and '-' ("cubic-bezier"), and each part of
    # a hyphenated word on its own too.
    tokens = re.findall(r'[A-Za-z_][A-Za-z_-]*', text)
    found = set(tokens) | {part for t in tokens for part in t.split('-') if part}
    found_lower = {w.lower() for w in found}
    words = parser_words(word_files)
    check(len(words) >= 20, f'{len(words)} words read from the parser: the reading works')
    for word in sorted(words):
        check(word in found_lower,
              f'veil(5) names the word "{word}" ({", ".join(sorted(words[word]))})')
    fields = status_fields(field_files)
    check(len(fields) >= 20, f'{len(fields)} status members read: the reading works')
    for field in sorted(fields):
        check(field in found,
              f'veil(5) names the status member "{field}" ({", ".join(sorted(fields[field]))})')
    print(f'{passed} passed, {failed} failed')
    return 0 if failed == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
