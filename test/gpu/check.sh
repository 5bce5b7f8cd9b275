#!/usr/bin/env bash
# GPU check for the verifier, for a host with an NVIDIA GPU, CUDA 12 and cuDNN 9:
# builds the tiny with-past models and their prepared copies, scores the same samples on cpu
# and cuda:0 (export with and without prefix reuse, prepared with it), asserts every value
# agrees within 1e-3 and prints tokens/s for each.
# Usage (repository root, after npm ci): test/gpu/check.sh [device, default cuda:0]
# Exit codes: 0 agreement, 1 disagreement or failure, 3 no CUDA provider or no GPU.
set -euo pipefail
cd "$(dirname "$0")/../.."
device="${1:-cuda:0}"

no_cuda() {
  echo "gpu check: no CUDA provider: $1" >&2
  echo "  install it: (cd node_modules/onnxruntime-node && ONNXRUNTIME_NODE_INSTALL=cuda12 node script/install.js)" >&2
  echo "  (see packages/verifier/README.md, 'GPU hosts')" >&2
  exit 3
}

command -v nvidia-smi >/dev/null 2>&1 || no_cuda "nvidia-smi is not on PATH (no NVIDIA driver on this host)"
nvidia-smi -L >/dev/null 2>&1 || no_cuda "nvidia-smi finds no GPU"
ort_dir="$(node -p 'require("node:path").dirname(require.resolve("onnxruntime-node/package.json"))')"
provider="$(find "$ort_dir/bin" -name 'libonnxruntime_providers_cuda.so' -print -quit 2>/dev/null || true)"
[ -n "$provider" ] || no_cuda "libonnxruntime_providers_cuda.so is not under $ort_dir/bin (installed with ONNXRUNTIME_NODE_INSTALL=skip?)"

nvidia-smi -L
echo "CUDA provider: $provider"
status=0
timeout 290 node --conditions=@assay/source --import tsx test/gpu/check.ts "$device" || status=$?
if [ "$status" -eq 124 ]; then echo "gpu check: did not finish within 290 s" >&2; fi
exit "$status"
