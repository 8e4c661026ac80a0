import re, sys, pathlib, shutil
src = pathlib.Path(sys.argv[1]); out = pathlib.Path(sys.argv[2])
ptx = (src / "linear_kernel.ptx").read_text().split("\n")
def write(name, lines):
    d = out / name; d.mkdir(parents=True, exist_ok=True)
    shutil.copy(src / "linear.launch.json", d)
    (d / "linear_kernel.ptx").write_text("\n".join(lines))
write("base", ptx)
# split region: lines with [%rd132...] in the producer loop
st = re.compile(r"\s*st\.shared\.v4\.b32\s+\[%rd132(\+(\d+))?\]")
def off(l):
    m = st.match(l); return int(m.group(2) or 0) if m else None
# hi stores: offsets in A part [0,16384) or B part [98304,114688)
nohi = [l for l in ptx if not (off(l) is not None and (off(l) < 16384 or 98304 <= off(l) < 114688))]
write("nohi", nohi)
print("nohi removed", len(ptx) - len(nohi))
# nosplit: remove all loads/stores/and/sub of the split (loads of [%rd132..], stores, and.b32 -8192, sub.rn.f32 in split)
rm = re.compile(r"\s*(ld|st)\.shared\.v4\.b32.*\[%rd132|\s*and\.b32\s+%r\d+, %r\d+, -8192;|\s*sub\.rn\.f32")
nosplit = [l for l in ptx if not rm.match(l)]
write("nosplit", nosplit)
print("nosplit removed", len(ptx) - len(nosplit))
# oneprod: drop the first two wgmma of each triple
w = [i for i, l in enumerate(ptx) if l.startswith("wgmma.mma_async")]
assert len(w) == 12, len(w)
drop = {i for j, i in enumerate(w) if j % 3 != 2}
write("oneprod", [l for i, l in enumerate(ptx) if i not in drop])
# noprod: no wgmma at all in main loop (but keep commit/wait): pure pipeline cost
write("noprod", [l for i, l in enumerate(ptx) if i not in set(w)])
