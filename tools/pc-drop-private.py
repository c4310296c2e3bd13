#!/usr/bin/env python3
"""pc-drop-private.py LIBDIR NAME.pc: removes Requires.private and Libs.private from an installed
pkg-config file (meson's install script: MESON_INSTALL_DESTDIR_PREFIX, DESTDIR)."""
import os
import sys

libdir, name = sys.argv[1:3]
if os.path.isabs(libdir):
    base = os.environ.get('DESTDIR', '') + libdir
else:
    base = os.path.join(os.environ['MESON_INSTALL_DESTDIR_PREFIX'], libdir)
path = os.path.join(base, 'pkgconfig', name)
with open(path, encoding='utf-8') as f:
    lines = f.readlines()
kept = [line for line in lines
        if not line.startswith(('Requires.private:', 'Libs.private:'))]
with open(path, 'w', encoding='utf-8') as f:
    f.writelines(kept)
print(f'{path}: {len(lines) - len(kept)} private lines dropped')
