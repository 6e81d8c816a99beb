#!/usr/bin/env bash
# Install a single-node Slurm (Debian's slurm-wlm) and munge, for the sharded-regression test
# (crates/cli/tests/it/regress_slurm.rs) and tools/slurm/single-node.sh. Idempotent: with the
# daemons and clients already on PATH it does nothing. Where it cannot install (not root, no
# apt-get, no network) it says why and exits 0, so CI goes on and the test skips with a message.
set -uo pipefail

have_all() {
    for tool in slurmctld slurmd sbatch sinfo munged; do
        command -v "$tool" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin" command -v "$tool" >/dev/null 2>&1 || return 1
    done
}

# sinfo --version needs a slurm.conf; the package's version does not.
version() {
    dpkg-query -W -f='slurm-wlm ${Version}' slurm-wlm 2>/dev/null || echo "slurm on PATH"
}

if have_all; then
    echo "slurm: already installed ($(version))"
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "slurm: not installed, and not root: cannot apt-get install slurm-wlm munge (the Slurm test will skip)"
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "slurm: not installed, and no apt-get on this system (the Slurm test will skip)"
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
if ! apt-get update -qq; then
    echo "slurm: apt-get update failed (no network or no mirror?): the Slurm test will skip"
    exit 0
fi
if ! apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null; then
    echo "slurm: apt-get install slurm-wlm munge failed: the Slurm test will skip"
    exit 0
fi
if have_all; then
    echo "slurm: installed ($(version))"
else
    echo "slurm: apt-get installed slurm-wlm munge, but the daemons are not on PATH (the Slurm test will skip)"
fi
