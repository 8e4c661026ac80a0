# Builds stream-K probe variants (outputs wrong) from a compiled sk kernel dir.
import re, sys, shutil, pathlib
src = pathlib.Path(sys.argv[1]); out = pathlib.Path(sys.argv[2])
ptx = next(src.glob('*.ptx')); text = ptx.read_text().split('\n')
def write(name, lines):
    d = out / name; shutil.rmtree(d, ignore_errors=True); shutil.copytree(src, d)
    (d / ptx.name).write_text('\n'.join(lines))
# nowait: the finisher never waits for a flag.
acq = [i for i, l in enumerate(text) if 'ld.acquire.gpu.b32' in l]
assert len(acq) == 1, acq
nowait = list(text)
m = re.search(r'ld\.acquire\.gpu\.b32\s+(%r\d+),', nowait[acq[0]])
nowait[acq[0]] = f'\tmov.b32 \t{m.group(1)}, 1;'
write('c-nowait', nowait)
# nofix: no wait, no partial stores, no partial loads (zeros added).
nofix = list(nowait)
fence = [i for i, l in enumerate(nofix) if 'fence.acq_rel.gpu' in l]
assert len(fence) == 1
i = fence[0]
while 'bar.sync' not in nofix[i]: i -= 1
i -= 1; removed = 0
while i > 0 and 'st.global.v4.b32' in nofix[i]:
    nofix[i] = '\t// removed partial store'; removed += 1; i -= 1
loads = 0
for j, l in enumerate(nofix):
    mm = re.match(r'\s*ld\.global\.v4\.b32\s+\{(%r\d+), (%r\d+), (%r\d+), (%r\d+)\}', l)
    if mm:
        nofix[j] = ' '.join(f'mov.b32 {r}, 0;' for r in mm.groups()); loads += 1
print('partial stores removed', removed, 'loads', loads)
assert removed == loads and removed > 0
write('d-nofix', nofix)
