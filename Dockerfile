# SPDX-License-Identifier: Apache-2.0
# gpupack: gpupack-webhook, gpupack-extender, gpupack-advisor and gpupack-certs in one image.
#   docker build -t ghcr.io/gpupack/gpupack:$(cat VERSION) .      (or: make image)
# The manifests choose the program with `command:`; the default is the webhook.

# ---- build: the same packages and Makefile as a developer's machine --------------------------
FROM debian:bookworm AS build
WORKDIR /src
COPY tools/deps.sh tools/deps.sh
RUN tools/deps.sh build && rm -rf /var/lib/apt/lists/*
COPY Makefile VERSION ./
COPY include include
COPY lib lib
COPY webhook webhook
COPY extender extender
COPY certs certs
COPY advisor advisor
COPY tools/embed.c tools/embed.c
COPY manifests/base/policy.json manifests/base/policy.json
RUN make -j"$(nproc)" bin/gpupack-webhook bin/gpupack-extender bin/gpupack-certs bin/gpupack-advisor \
    && strip bin/gpupack-webhook bin/gpupack-extender bin/gpupack-certs bin/gpupack-advisor

# ---- runtime: only the shared libraries the binaries link (tests/e2e/image.sh checks this
# list against `ldd`), CA certificates for the Kubernetes API client, and a non-root user. -------
FROM debian:bookworm-slim AS runtime
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
        libmicrohttpd12 libcjson1 libcurl4 libssl3 libgnutls30 libyaml-0-2 libyajl2 ca-certificates \
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/* /var/log/apt /var/log/dpkg.log
COPY --from=build /src/bin/gpupack-webhook /src/bin/gpupack-extender /src/bin/gpupack-certs \
    /src/bin/gpupack-advisor /usr/local/bin/
# 65532: the conventional "nonroot" uid; the manifests run it with runAsNonRoot, a read-only root
# file system and no capabilities. The daemons write nothing to disk.
USER 65532:65532
EXPOSE 8443 8888 8889 8090
ENTRYPOINT ["/usr/local/bin/gpupack-webhook"]
