"""
Files from Debian's packages, for tests that show what other programs made: the package is
fetched by apt at test time (`apt-get download`, inside the development root that tools/devroot
makes) and only the paths a test asks for are extracted, into a cache kept between runs
(/var/cache/veil-test-debs/PACKAGE_VERSION/). A package that cannot be fetched fails the test
that needs it: it is never a skip.

    import debfiles
    root = debfiles.extract('gnome-backgrounds', 'usr/share/backgrounds/gnome/adwaita-l.jxl')
    path = os.path.join(root, 'usr/share/backgrounds/gnome/adwaita-l.jxl')
"""
import fcntl
import os
import shutil
import subprocess
import tempfile

CACHE = '/var/cache/veil-test-debs'
APT = ['-o', 'Acquire::Check-Valid-Until=false', '-q']


class Unavailable(RuntimeError):
    pass


def _run(args, cwd=None):
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise Unavailable('%s: %s' % (' '.join(args), (proc.stderr or proc.stdout).strip()))
    return proc.stdout


def version(package):
    """The version apt would fetch of package."""
    out = _run(['apt-cache'] + APT + ['policy', package])
    for line in out.splitlines():
        line = line.strip()
        if line.startswith('Candidate:'):
            candidate = line.split(None, 1)[1]
            if candidate != '(none)':
                return candidate
    raise Unavailable('apt knows no version of %s (run apt-get update in the root?)' % package)


def _deb(package, ver, cache):
    """The package's .deb in the cache, fetched once."""
    for name in os.listdir(cache):
        if name.endswith('.deb'):
            return os.path.join(cache, name)
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        _run(['apt-get'] + APT + ['download', '%s=%s' % (package, ver)], cwd=tmp)
        debs = [n for n in os.listdir(tmp) if n.endswith('.deb')]
        if len(debs) != 1:
            raise Unavailable('apt-get download %s left %r' % (package, debs))
        final = os.path.join(cache, debs[0])
        os.rename(os.path.join(tmp, debs[0]), final)
    return final


def members(package):
    """The paths of the files (not directories) in package's candidate version, without the
    leading './', from `dpkg-deb -c` of its .deb (fetched once)."""
    ver = version(package)
    cache = os.path.join(CACHE, '%s_%s' % (package, ver.replace(':', '%3a')))
    os.makedirs(cache, exist_ok=True)
    with open(os.path.join(cache, '.lock'), 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        deb = _deb(package, ver, cache)
    out = _run(['dpkg-deb', '-c', deb])
    return [line.split(None, 5)[5].split(' -> ')[0][2:] for line in out.splitlines()
            if line.startswith('-')]


def extract(package, *paths):
    """
    The directory under which each of paths (as in the package, without the leading '/'; a
    directory extracts what is under it) of package's candidate version is, extracted once.
    """
    ver = version(package)
    cache = os.path.join(CACHE, '%s_%s' % (package, ver.replace(':', '%3a')))
    os.makedirs(cache, exist_ok=True)
    root = os.path.join(cache, 'root')
    with open(os.path.join(cache, '.lock'), 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        # What was extracted whole, a member a line: a directory that exists may hold only the
        # files asked for before, not all of its own.
        manifest = os.path.join(cache, 'extracted')
        done = set(open(manifest).read().split('\n')) if os.path.exists(manifest) else set()
        missing = [p.strip('/') for p in paths if not _covered(p.strip('/'), done)]
        if missing:
            deb = _deb(package, ver, cache)
            with tempfile.TemporaryDirectory(dir=cache) as tmp:
                # dpkg-deb --fsys-tarfile piped to tar: only the members asked for.
                tar = subprocess.Popen(['dpkg-deb', '--fsys-tarfile', deb],
                                       stdout=subprocess.PIPE)
                members = ['./' + p for p in missing]
                proc = subprocess.run(['tar', '-x', '-C', tmp, '--wildcards-match-slash']
                                      + members, stdin=tar.stdout, capture_output=True,
                                      text=True)
                tar.stdout.close()
                tar.wait()
                if proc.returncode != 0:
                    raise Unavailable('%s %s has no %s: %s' % (package, ver, missing,
                                                               proc.stderr.strip()))
                for p in missing:
                    src = os.path.join(tmp, p)
                    dst = os.path.join(root, p)
                    os.makedirs(os.path.dirname(dst), exist_ok=True)
                    if os.path.exists(dst):
                        shutil.rmtree(dst) if os.path.isdir(dst) else os.unlink(dst)
                    os.rename(src, dst)
            with open(manifest, 'a') as f:
                f.write(''.join(p + '\n' for p in missing))
    return root


def _covered(member, done):
    """Whether member, or a directory above it, was extracted whole."""
    while member:
        if member in done:
            return True
        member = os.path.dirname(member)
    return False


def path(package, member):
    """The local path of one file (or directory) of package, extracted once."""
    return os.path.join(extract(package, member), member.strip('/'))
