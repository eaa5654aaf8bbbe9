cd "$(dirname "$0")"
for f in "$@"; do nvcc -O3 -arch=sm_90 -DKFILE="\"$f.cu\"" -o $f tile_drive.cu -Xptxas -v 2>&1 | grep -o 'Used [0-9]* registers' | head -1 | sed "s|^|$f |" & done; wait
for r in 1 2 3; do for f in "$@"; do ./$f; done; done
