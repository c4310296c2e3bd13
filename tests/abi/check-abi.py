#!/usr/bin/env python3
"""The functions libveil.so exports against the functions include/veil/veil.h declares.

check-abi.py NM LIBVEIL HEADER: fails on a function exported but not declared (an internal
one leaking, as veil_scene_run did through module/veil.map's glob), on one declared but not
exported (the version script forgot it), and on any exported symbol that is not a function.
The header is parsed: its comments and preprocessor lines go, then each top-level declaration
whose declarator is `name(` is a function (typedefs of function pointers are not).
"""
import re
import subprocess
import sys


def header_functions(path):
    text = open(path, encoding='utf-8').read()
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    lines = []
    continued = False
    for line in text.splitlines():
        # A preprocessor line, and the lines its backslashes continue.
        if continued or line.lstrip().startswith('#'):
            continued = line.rstrip().endswith('\\')
            continue
        lines.append(line)
    functions = set()
    for decl in ' '.join(lines).split(';'):
        decl = decl.strip()
        if not decl or decl.startswith('typedef') or '{' in decl:
            continue
        match = re.search(r'\b([A-Za-z_]\w*)\s*\(', decl)
        if match is not None:
            functions.add(match.group(1))
    return functions


def exported(nm, lib):
    out = subprocess.run([nm, '-D', '--defined-only', lib], check=True,
                         capture_output=True, text=True).stdout
    functions, others = set(), set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) != 3:
            continue
        _, kind, name = fields
        name = name.split('@')[0]
        if kind in ('T', 'W', 'i'):
            functions.add(name)
        elif kind != 'A':  # the version node, when the script names one
            others.add(f'{name} ({kind})')
    return functions, others


def main():
    nm, lib, header = sys.argv[1:4]
    declared = header_functions(header)
    functions, others = exported(nm, lib)
    print(f'{len(declared)} functions declared in {header}')
    print(f'{len(functions)} functions exported by {lib}')
    ok = True
    if not declared:
        print('no function found in the header: the parser is broken')
        ok = False
    for name in sorted(functions - declared):
        print(f'exported but not in veil.h: {name}')
        ok = False
    for name in sorted(declared - functions):
        print(f'in veil.h but not exported: {name}')
        ok = False
    for name in sorted(others):
        print(f'exported symbol that is not a function: {name}')
        ok = False
    print('ABI matches the header' if ok else 'ABI differs from the header')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
