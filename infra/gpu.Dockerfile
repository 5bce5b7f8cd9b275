# GPU worker image: CUDA 12 + cuDNN 9 runtime, Node 20, and onnxruntime-node WITH its CUDA
# provider. One process per GPU; the model folder is mounted at run time, never copied in.
#   docker build -f infra/gpu.Dockerfile -t assay-gpu:latest .
# Any CUDA 12.x + cuDNN 9 runtime base works (onnxruntime's CUDA 12 builds run on any 12.x);
# the host driver must support the CUDA version of the base (see infra/README.md).
ARG NODE_IMAGE=node:20-bookworm-slim
ARG CUDA_IMAGE=nvidia/cuda:12.8.1-cudnn-runtime-ubuntu22.04

FROM ${NODE_IMAGE} AS node

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# Installs skip onnxruntime-node's download here; the step below runs it on purpose, so it
# happens whatever npm's policy on dependency install scripts is.
ENV ONNXRUNTIME_NODE_INSTALL=skip
COPY . .
RUN npm ci --no-audit --no-fund
RUN npm run build
# What ships is installed again, from the cache `npm ci` filled: the workspaces the GPU
# worker runs and their production dependencies, nothing else (the prune drops what the
# install kept from the full lockfile's own flags, such as @types/node). A worker only scores: the
# operator's model tools (model check, prepare, probe fitting, tiny models; apps/cli says so
# when they are missing), their tokenizer packages (~400 MB) and ONNX writer, the producer
# and the CPU worker are left out. A test emulates this stage and fails on any installed
# package the worker does not import.
RUN npm pkg delete devDependencies \
 && npm pkg set --json 'workspaces=["packages/core","packages/queue","packages/store","packages/scorers","packages/selection","packages/report","packages/pipeline","packages/verifier","apps/cli","apps/worker-gpu"]' \
 && npm install --omit=dev --offline --no-audit --no-fund \
 && npm prune --omit=dev --offline --no-audit --no-fund \
 && rm -rf .turbo test packages/model-tools apps/producer apps/worker-cpu \
 && find apps packages -name '*.tsbuildinfo' -delete
# onnxruntime-node ships its CPU binaries for every OS and CPU (~290 MB); the CUDA provider
# below is for linux/x64 only, which is what stays.
RUN cd node_modules/onnxruntime-node/bin/napi-v6 \
 && for dir in */*; do if [ "$dir" != "linux/x64" ]; then rm -rf "$dir"; fi; done \
 && test -s linux/x64/onnxruntime_binding.node
# The CUDA 12 provider libraries (libonnxruntime_providers_{cuda,shared,tensorrt}.so) are
# too large for the npm package; onnxruntime-node's own install script fetches them from
# NuGet into bin/napi-v6/linux/x64/. Fail the build if any is missing.
RUN cd node_modules/onnxruntime-node \
 && ONNXRUNTIME_NODE_INSTALL=cuda12 node script/install.js \
 && for lib in libonnxruntime_providers_cuda.so libonnxruntime_providers_shared.so libonnxruntime_providers_tensorrt.so; do \
      test -s "bin/napi-v6/linux/x64/$lib" || { echo "onnxruntime-node: $lib was not installed" >&2; exit 1; }; \
    done

FROM ${CUDA_IMAGE}
# The same Node 20 binary as the CPU image (glibc 2.28+; Ubuntu 22.04 has 2.35).
COPY --from=node /usr/local/bin/node /usr/local/bin/node
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app /app
# The CUDA provider must find CUDA 12 and cuDNN 9 in this base. libcuda.so.1 is the driver's:
# the NVIDIA container runtime mounts it when the container starts, so it is absent here.
RUN missing="$(cd node_modules/onnxruntime-node/bin/napi-v6/linux/x64 \
      && LD_LIBRARY_PATH=. ldd libonnxruntime_providers_cuda.so | grep 'not found' | grep -v 'libcuda\.so' || true)" \
 && if [ -n "$missing" ]; then echo "CUDA provider cannot load: $missing" >&2; exit 1; fi
RUN useradd --uid 1000 --user-group --no-create-home --shell /usr/sbin/nologin assay
USER 1000:1000
# Healthy while the worker takes jobs with Redis and Postgres reachable (GET /readyz on its
# --metrics-port, 9464 in compose and the manifests); loading a large model takes minutes.
HEALTHCHECK --interval=30s --timeout=10s --start-period=300s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9464/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "apps/worker-gpu/dist/main.js", "--help"]
