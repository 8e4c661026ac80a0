here=$PWD; . bench/unpack_bundle.sh; export TESSEL_HOME=$B PYTHONPATH=$PWD/python PATH=$B/bin:$PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/env.txt
S=$B/schedules/matmul_relu_wgmma.mlir
tar xJf .bundle/cbs.tar.xz -C /tmp
sw() { n=$1; shift; timeout 120 python3 bench/check_shapes.py --tools $B/bin --chip sm_90a --schedule $S --sweep --run-jobs 8 --out $OUT/sweep-$n.json "$@" > $OUT/sweep-$n.log 2>&1; echo "$n rc $? $(tail -1 $OUT/sweep-$n.log)"; }
sw t160-kn --shapes 2000x2056x264 --dtypes f16 --fix tile_n=160 --fix group_m=8 --fix stages=4
sw t160-nk --shapes 2000x2056x264 --dtypes bf16 --fix tile_n=160 --fix group_m=8 --fix stages=4 --linear gelu_tanh --weight nk
sw narrow-kn --shapes 200x20x264,77x40x1000 --dtypes f16 --fix tile_n=64 --fix group_m=8 --fix stages=4
sw narrow-nk --shapes 200x20x264 --dtypes bf16 --fix tile_n=64 --fix group_m=8 --fix stages=4 --linear gelu_tanh --weight nk
sw narrow-f32 --input test/Runtime/Inputs/linear_tf32_bias_gelu_tanh_300x520x700_f32_nk.mlir --shapes 300x520x700 --dtypes f32 --fix tile_n=160 --fix group_m=8
timeout 360 python3 bench/compare_builds.py run /tmp/cbsel $OUT/builds.json --rounds 4 > $OUT/builds.log 2>&1; echo "builds rc $?"; tail -3 $OUT/builds.log
cd $OUT && tar cJf logs3.tar.xz sweep-* builds.log && rm sweep-* builds.log
