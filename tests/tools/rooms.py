#!/usr/bin/env python3
"""
The rooms of module/, checked from the #include lines (docs/architecture.md, "Why these
folders"). Each room may include its own headers and those of the rooms below it:

    words/     the pure parser                  (nothing of module/ but words/)
    core/      settings, outputs, transitions   (words/)
    show/      slideshow, timed                 (core/, words/; never commands/)
    commands/ state/ control/ policy/           (on top: any room but veil.c)
    veil.c     the public handle                (wires every room)

Every room above show/ (and veil.c) reaches the shows through their table, show/show.h, alone:
a new kind of show is a file of show/ and its line in the table, nothing above it names it.
The dispatcher (commands/) includes nothing of state/: state/ listens to the scene's command
signal, and runs what a restore brings back through the dispatcher.

Outside module/, only the tests and benches of its internals (tests/unit, tests/fuzz,
tests/tools, tests/bench) include its headers, and veilctl (clients/) the parser's alone: a compositor, veil-tinywl among them,
sees include/veil/ only. Prints each broken rule and exits 1, or exits 0.

`rooms.py SRCDIR --count` prints the counts docs/architecture.md gives instead.
"""
import os
import re
import sys

ROOMS = {'words': 0, 'core': 1, 'show': 2, 'commands': 3, 'state': 3, 'control': 3,
	'policy': 3, 'xray': 3, '': 4}
# The one header of show/ that the rooms above it may include: the table of show kinds.
SHOW_TABLE = 'module/show/show.h'
# Files outside module/ that test or measure its internals (they link veil_internal_dep).
INTERNAL_TESTS = ('tests/unit/', 'tests/fuzz/', 'tests/tools/', 'tests/bench/')
# Rooms of one floor that one of them may not include: (includer, included) and why.
REFUSED = {
	('commands', 'state'): 'state/ listens to the scene\'s command signal, the dispatcher does '
		'not call it',
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def room(path):
	"""The room of a path under module/ ('' for module/veil.c and its like)."""
	parts = path.split('/')
	return parts[1] if len(parts) > 2 else ''


def sources(top, under):
	for base, dirs, files in os.walk(os.path.join(top, under)):
		dirs[:] = sorted(d for d in dirs if not d.startswith('build') and d != '.git')
		for name in sorted(files):
			if name.endswith(('.c', '.h')):
				path = os.path.relpath(os.path.join(base, name), top)
				with open(os.path.join(top, path), encoding='utf-8', errors='replace') as f:
					yield path, f.read()


def arrows(top):
	"""(file, included module/ header) for every file of the tree."""
	for path, text in sources(top, '.'):
		for header in INCLUDE.findall(text):
			if header.startswith('module/'):
				yield path, header


def broken(top):
	for path, header in arrows(top):
		if not path.startswith('module/'):
			if path.startswith(INTERNAL_TESTS):
				continue
			if path.startswith('clients/') and header.startswith('module/words/'):
				continue
			yield f'{path} includes {header}: outside module/ only include/veil/ is public'
			continue
		mine, theirs = room(path), room(header)
		if theirs not in ROOMS:
			yield f'{path} includes {header}: not in a room of module/'
		elif ROOMS.get(mine, 5) > ROOMS['show'] and theirs == 'show' and \
				header != SHOW_TABLE:
			room_name = mine or 'module'
			yield f'{path} includes {header}: {room_name}/ reaches shows through {SHOW_TABLE} only'
		elif (mine, theirs) in REFUSED:
			yield f'{path} includes {header}: {REFUSED[(mine, theirs)]}'
		elif ROOMS.get(mine, 5) < ROOMS[theirs]:
			yield f'{path} includes {header}: {mine or "module"}/ sits below {theirs or "veil.c"}'


def count(top):
	"""Files and lines per room, arrows up, the largest file of module/."""
	files = {}
	for path, text in sources(top, 'module'):
		files[path] = text.count('\n')
	per_room = {}
	for path, lines in files.items():
		r = room(path) or '(module/)'
		n, total = per_room.get(r, (0, 0))
		per_room[r] = (n + 1, total + lines)
	for r in sorted(per_room):
		print(f'room {r}: {per_room[r][0]} files, {per_room[r][1]} lines')
	inside = [(p, h) for p, h in arrows(top) if p.startswith('module/')]
	print(f'include arrows inside module/: {len(inside)}')
	print(f'rules broken: {len(list(broken(top)))}')
	largest = max(files, key=files.get)
	print(f'largest file: {largest} ({files[largest]} lines); over 600 lines: '
		+ ', '.join(f'{p} {n}' for p, n in sorted(files.items()) if n > 600))
	# A setting word's reach: the files of module/ that name loopfade, the model word.
	word = sorted(p for p, _ in sources(top, 'module') if 'loopfade' in
		open(os.path.join(top, p), encoding='utf-8').read())
	print(f'files naming loopfade: {len(word)} ({", ".join(word)})')


def main():
	top = sys.argv[1] if len(sys.argv) > 1 else '.'
	if '--count' in sys.argv[2:]:
		count(top)
		return 0
	problems = list(broken(top))
	for p in problems:
		print(p)
	n = sum(1 for _ in arrows(top))
	print(f'{n} includes of module/ headers read, {len(problems)} against the rooms')
	return 1 if problems else 0


if __name__ == '__main__':
	sys.exit(main())
