#!/usr/bin/env bash
# Build the `warpkit` wheel with maturin and run the pytest suite against it, in a venv under
# target/ (created, and maturin, numpy and pytest installed from PyPI, when absent). Needs
# the `warpkit` CLI of target/debug (built by `cargo test --workspace`), which the tests
# compare against. Exit status: pytest's (0 only when every test passed).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
venv=${WARPKIT_VENV:-$root/target/py-venv}

if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    if command -v apt-get >/dev/null; then
        apt-get update -qq && apt-get install -y -qq python3 python3-venv >/dev/null
    else
        echo "error: python3 with the venv module is required" >&2
        exit 2
    fi
fi
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check \
    "maturin>=1.16,<2" "numpy>=1.22" "pytest>=7"

# The wheel is built in the workspace's target directory, so the libraries compiled for
# the release CLI are reused.
rm -rf "$root/target/wheels"
"$venv/bin/maturin" build --release --quiet -m crates/py/Cargo.toml -i "$venv/bin/python" \
    -o "$root/target/wheels"
"$venv/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps \
    "$root"/target/wheels/warpkit-*.whl

[ -x "$root/target/debug/warpkit" ] || cargo build -q -p warpkit
cd crates/py/tests
WARPKIT_CLI="$root/target/debug/warpkit" "$venv/bin/python" -m pytest -q -p no:cacheprovider .
