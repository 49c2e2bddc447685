export OMP_PROC_BIND=spread OMP_PLACES=threads PK_TUNING_CACHE=off
mkdir -p "$OUT/ab"; lscpu > "$OUT/ab/lscpu.txt"
for r in 1 2 3 4 5 6 7 8; do
  order="c8dce54 15734e5 cedff46"; [ $((r % 2)) = 0 ] && order="cedff46 15734e5 c8dce54"
  for v in $order; do
    t=$((start + end - $(date +%s)))
    [ $t -gt 15 ] || break 2
    timeout $t build/rows-v4/$v/lbm_steps --updates=4e7 aa-fp16-128 ab-fp16-128 aa-fp32-128 ab-fp32-128 aa-fp16-256 ab-fp16-256 2>/dev/null |
      sed "s/^/$r $v /" >> "$OUT/ab/rounds.txt"
  done
done
cat "$OUT/ab/rounds.txt"
