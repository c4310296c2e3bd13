"""
proc: what the tests and benches read of a process from /proc, and nothing else: CPU time of a
process and of each thread (user and system apart), VmRSS and RssAnon, PSS and smaps by kind,
threads, descriptors, the whole process tree (the compositor, its veil-decoder monitors and
their decoding processes), and the machine's busy time and load.
"""
import os
import re

CLK_TCK = os.sysconf('SC_CLK_TCK')
NCPU = os.cpu_count() or 1


def read_text(path):
    with open(path, 'rb') as f:
        return f.read().decode('utf-8', 'replace')


def proc_stat(pid, tid=None, children=False):
    """
    (comm, utime, stime, threads, starttime) of a process or thread, in clock ticks. children:
    add the time of the children it has reaped (cutime, cstime): sway's swaybg runs that ended.
    """
    path = f'/proc/{pid}/stat' if tid is None else f'/proc/{pid}/task/{tid}/stat'
    text = read_text(path)
    lp, rp = text.index('('), text.rindex(')')
    comm = text[lp + 1:rp]
    f = text[rp + 2:].split()
    # f[0] is field 3 (state): utime is field 14, stime 15, cutime 16, cstime 17,
    # num_threads 20, starttime 22.
    ut, st = int(f[11]), int(f[12])
    if children:
        ut, st = ut + int(f[13]), st + int(f[14])
    return comm, ut, st, int(f[17]), int(f[19])


def proc_status(pid, tid=None):
    path = f'/proc/{pid}/status' if tid is None else f'/proc/{pid}/task/{tid}/status'
    out = {}
    for line in read_text(path).splitlines():
        k, _, v = line.partition(':')
        v = v.strip()
        if v.endswith(' kB'):
            v = v[:-3]
        out[k] = v
    return out


def smaps_mappings(pid):
    """
    Each mapping of /proc/PID/smaps as (name, size, fields): its path or [heap], [stack],
    '' (anonymous); its size and the fields' values (Rss, Pss, Anonymous, ...) in KiB.
    """
    out = []
    for line in read_text(f'/proc/{pid}/smaps').splitlines():
        head = line.split(None, 5)
        if head and '-' in head[0] and len(head) >= 5 and ':' not in head[0]:
            lo, _, hi = head[0].partition('-')
            fields = {}
            out.append((head[5].strip() if len(head) > 5 else '',
                        (int(hi, 16) - int(lo, 16)) // 1024, fields))
            continue
        k, _, v = line.partition(':')
        v = v.split()
        if out and len(v) == 2 and v[1] == 'kB':
            out[-1][2][k] = int(v[0])
    return out


def smaps(pid):
    """
    Resident memory by kind, from /proc/PID/smaps (KiB): 'files' (libraries and other mapped
    files), 'heap' (glibc's main arena), 'stacks', 'anon' (other anonymous memory: glibc's
    thread arenas and its mmap()ed large blocks, such as video frames), and 'big': the
    anonymous mappings of 1 MiB or more as (size, rss) pairs.
    """
    out = {'files': 0, 'heap': 0, 'stacks': 0, 'anon': 0, 'big': []}
    for name, size, fields in smaps_mappings(pid):
        rss = fields.get('Rss', 0)
        if name == '[heap]':
            out['heap'] += rss
        elif name.startswith('[stack'):
            out['stacks'] += rss
        elif name.startswith('/') or name.startswith('memfd:'):
            out['files'] += rss
        elif name == '' or name.startswith('[anon'):
            out['anon'] += rss
            if size >= 1024:
                out['big'].append((size, rss))
    return out


def mapping_kind(name):
    """
    What a mapping of smaps is, for pss_by_kind(): 'memfd NAME' (a memfd: GStreamer's
    gst-shm pool, veil's frames, wlroots' and clients' shm buffers), 'shm NAME' (a file of
    /dev/shm, its random suffix dropped), 'heap', 'anon', 'stack', 'libraries' (shared
    objects) or 'files' (other mapped files, the vdso).
    """
    name = name.removesuffix(' (deleted)')
    if name.startswith('/memfd:'):
        return 'memfd ' + name[len('/memfd:'):]
    if name.startswith('/dev/shm/'):
        return 'shm ' + re.sub(r'[-_.]?[A-Za-z0-9]{6}$', '', name[len('/dev/shm/'):])
    if name == '[heap]':
        return 'heap'
    if name == '' or name.startswith('[anon'):
        return 'anon'
    if name.startswith('[stack'):
        return 'stack'
    if re.search(r'\.so(\.[0-9.]+)?$', name):
        return 'libraries'
    return 'files'


def pss_by_kind(pid):
    """{kind (mapping_kind()): PSS in KiB} of a process, and 'total'; {} once it has gone."""
    out = {'total': 0}
    try:
        maps = smaps_mappings(pid)
    except OSError:
        return {}
    for name, _, fields in maps:
        pss = fields.get('Pss', 0)
        if pss:
            kind = mapping_kind(name)
            out[kind] = out.get(kind, 0) + pss
            out['total'] += pss
    return out


def pss_kib(pid):
    """
    Proportional set size (/proc/PID/smaps_rollup): pages shared by the compositor and a
    helper (the frames' memfds, libraries) count half in each, so that the sum counts them once.
    """
    try:
        for line in read_text(f'/proc/{pid}/smaps_rollup').splitlines():
            if line.startswith('Pss:'):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def smaps_lines(before, after):
    """The report's lines for what grew between two smaps() readings."""
    def d(key):
        return (after[key] - before[key]) / 1024.0
    lines = [f'Memory by kind, growth over the wallpaper-less compositor (smaps, at the end): '
             f'mapped files (libraries, plugins) {d("files"):+.1f} MiB, main heap '
             f'{d("heap"):+.1f} MiB, other anonymous {d("anon"):+.1f} MiB']
    sizes = {}
    for size, rss in after['big']:
        n, total = sizes.get(size, (0, 0))
        sizes[size] = (n + 1, total + rss)
    if sizes:
        top = sorted(sizes.items(), key=lambda kv: -kv[1][1])[:8]
        lines.append('Anonymous mappings of 1 MiB or more (count x size: resident): ' +
                     ', '.join(f'{n} x {size / 1024:.1f} MiB: {total / 1024:.1f}'
                               for size, (n, total) in top))
    return lines


def count_fds(pid):
    """fd_count(), or 0 once the process has gone."""
    try:
        return fd_count(pid)
    except OSError:
        return 0


def names_diff(before, after):
    """(appeared, gone): two samples' thread_names, each 'name' or 'name xN'."""
    a, b = {}, {}
    for d, text in ((a, before), (b, after)):
        for n in filter(None, (text or '').split(';')):
            d[n] = d.get(n, 0) + 1

    def fmt_names(x, y):
        out = []
        for n in sorted(x):
            k = x[n] - y.get(n, 0)
            if k > 0:
                out.append(n if k == 1 else f'{n} x{k}')
        return ', '.join(out) or 'none'
    return fmt_names(b, a), fmt_names(a, b)


def ppid_of(pid):
    try:
        text = read_text(f'/proc/{pid}/stat')
    except OSError:
        return None
    return int(text[text.rindex(')') + 2:].split()[1])


def descendants(pid):
    """Every live process below pid (not pid itself)."""
    children = {}
    for name in os.listdir('/proc'):
        if not name.isdigit():
            continue
        p = ppid_of(int(name))
        if p is not None:
            children.setdefault(p, []).append(int(name))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def uptime_ticks():
    return float(read_text('/proc/uptime').split()[0]) * CLK_TCK


def machine_ticks():
    """(busy, total) clock ticks of every CPU since boot, from /proc/stat."""
    f = [int(x) for x in read_text('/proc/stat').splitlines()[0].split()[1:]]
    # user nice system idle iowait irq softirq steal guest guest_nice; guest time is already
    # in user.
    total = sum(f[:8])
    idle = f[3] + f[4]
    return total - idle, total


def loadavg():
    return tuple(float(x) for x in read_text('/proc/loadavg').split()[:3])


def self_ticks():
    t = os.times()
    return (t.user + t.system + t.children_user + t.children_system) * CLK_TCK


def children(pid, state=None):
    """(pid, command name) of the processes whose parent is pid (in state, 'Z' say, if given)."""
    out = []
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open(f'/proc/{entry}/stat') as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(')') + 2:].split()
        if int(fields[1]) == pid and state in (None, fields[0]):
            out.append((int(entry), stat[stat.index('(') + 1:stat.rindex(')')]))
    return out


def decoding_pids(pid):
    """
    The processes that decode for the compositor pid in veil-decoder: the children of the
    veil-decoder monitors it started (a spare waiting for a request has none).
    """
    return [d for m, name in children(pid) if name == 'veil-decoder'
            for d, dname in children(m) if dname == 'veil-decoder']


def proc_threads(pid, decoders=False):
    """
    {tid: (name, CPU ticks: utime + stime)} of a process's threads (vanished ones left out);
    with decoders, also those of its veil-decoder decoding processes (a video played there).
    """
    if decoders:
        out = proc_threads(pid)
        for d in decoding_pids(pid):
            out.update(proc_threads(d))
        return out
    out = {}
    try:
        tids = os.listdir(f'/proc/{pid}/task')
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f'/proc/{pid}/task/{tid}/comm') as f:
                name = f.read().strip()
            with open(f'/proc/{pid}/task/{tid}/stat') as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(')') + 2:].split()  # fields from the 3rd (state) on
        out[int(tid)] = (name, int(fields[11]) + int(fields[12]))
    return out


def thread_count(pid, decoders=False):
    """A process's threads; with decoders, and those of its decoding processes."""
    if decoders:
        return len(proc_threads(pid, decoders=True))
    return len(os.listdir(f'/proc/{pid}/task'))


def fd_count(pid):
    return len(os.listdir(f'/proc/{pid}/fd'))


def fd_targets(pid):
    """What each of a process's descriptors is, by number: a file's path, socket:[inode], ..."""
    out = {}
    for fd in os.listdir(f'/proc/{pid}/fd'):
        try:
            out[int(fd)] = os.readlink(f'/proc/{pid}/fd/{fd}')
        except OSError:
            pass
    return out


def pidfd_count(pid):
    """The pidfds a process holds: the compositor holds one for each veil-decoder not reaped."""
    return sum(1 for target in fd_targets(pid).values() if target == 'anon_inode:[pidfd]')


def other_threads_cpu(pid, before, after):
    """CPU ticks the threads other than the main one used from snapshot before to after."""
    return sum(ticks - before.get(tid, (None, 0))[1]
               for tid, (_, ticks) in after.items() if tid != pid)


def rss_kb(pid):
    """VmRSS in KiB; 0 when /proc/PID/status has none (a zombie)."""
    return int(proc_status(pid).get('VmRSS', 0))


def rss_anon_kb(pid):
    """RssAnon, the process's resident anonymous memory, in KiB."""
    return int(proc_status(pid).get('RssAnon', 0))


def hwm_kb(pid):
    """VmHWM, the most the process was ever resident, in KiB."""
    return int(proc_status(pid).get('VmHWM', 0))


def wakeups(pid, tid=None):
    """How often a process's main thread (or thread tid) went to sleep and woke: its voluntary
    context switches."""
    return int(proc_status(pid, tid).get('voluntary_ctxt_switches', 0))


def cpu_seconds(pid):
    """User and system CPU time the process (all its threads) has used."""
    _, ut, st, _, _ = proc_stat(pid)
    return (ut + st) / CLK_TCK


def sanitized(pid):
    """Whether the process runs with AddressSanitizer (linked in, or libasan loaded)."""
    try:
        if 'libasan' in read_text(f'/proc/{pid}/maps'):
            return True
        with open(f'/proc/{pid}/exe', 'rb') as f:
            return b'__asan_init' in f.read()
    except OSError:
        return False
