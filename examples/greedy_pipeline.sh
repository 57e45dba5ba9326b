#!/usr/bin/env bash
# A WordPiece-style pipeline: train BPE on Shakespeare up to a target vocabulary size (with a
# progress bar), write vocab.txt, then tokenize an input file to an output file by greedy
# longest match with '##' continuation pieces.
#   bash examples/greedy_pipeline.sh [VOCAB_SIZE] [INPUT] [OUTDIR]
set -euo pipefail
CORPORA=${SUBWORD_CORPORA:-../shared/corpora}
SIZE=${1:-5000}
OUT=${3:-greedy-out}
mkdir -p "$OUT"
INPUT=${2:-$OUT/infer.txt}
[ -f "$INPUT" ] || printf 'slowestestestestest\nTo be, or not to be, that is the question\n' > "$INPUT"
python3 -m subword train "$CORPORA/en-shakespeare.txt" --algorithm greedy --vocab-size "$SIZE" \
    -o "$OUT/model.json" --vocab-txt "$OUT/vocab.txt"
python3 -m subword encode -m "$OUT/model.json" --tokens "$INPUT" -o "$OUT/output.txt"
echo "vocab.txt: $(wc -l < "$OUT/vocab.txt") tokens; tokenized $INPUT → $OUT/output.txt:"
cat "$OUT/output.txt"
