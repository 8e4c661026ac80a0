"""The K sweep of bench/results/f32/README.md ("lo rounded"): 256 x 1024 x K
f32 Linear layers at fixed 64x64 knobs, compiled into DIR/k<K>/<variant>/ for
`bench/compare_builds.py run DIR OUT.json` (run from the checkout, after
scripts/setup.sh). d-x3-nosplit and e-x3-nofence were then made from
a-x3-k2's PTX at K = 1024 and 4096 by deleting the producer's split (its
first ld.shared.v4 through its fence.proxy.async) or only the fence:
timing probes, whose outputs are wrong."""
import pathlib
import shutil
import sys

ROOT = pathlib.Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT / "python"))
from tessel import compiler  # noqa: E402

out = pathlib.Path(sys.argv[1])
shutil.rmtree(out, ignore_errors=True)
knobs = "tile_m=64,tile_n=64,stages=4,group_m=1,persistent=0,cluster=1"
variants = {"a-x3-k2": (False, knobs + ",split_k=2"),
            "b-x3-k1": (False, knobs + ",split_k=1"),
            "c-tf32-k2": (True, knobs + ",split_k=2")}
for k in (64, 256, 512, 1024, 2048, 4096):
    for name, (tf32, kn) in variants.items():
        kernel = compiler.compile_linear(
            256, 1024, k, "f32", bias=False, activation="relu",
            chip="sm_90a", knobs=dict(kv.split("=") for kv in kn.split(",")),
            allow_tf32=tf32, databases=[], sm_count=132)
        shutil.copytree(kernel.directory, out / f"k{k:05d}" / name)
        print(k, name, kernel.knobs, flush=True)
