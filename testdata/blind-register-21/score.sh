#!/usr/bin/env bash
# Scores an mcpsec binary on the blind register in this folder, with the one
# scorer in ../blind-register/score.sh (same options, output and exit codes):
#
#   testdata/blind-register-21/score.sh BIN [--verbose] [--jobs N]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REGISTER_DIR="$here" exec "$here/../blind-register/score.sh" "$@"
