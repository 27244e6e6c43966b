# SPDX-License-Identifier: Apache-2.0
# Sourced by the advisor's end-to-end scripts (after lib.sh): a real Prometheus (Debian's
# prometheus package) on loopback holding a week of dcgm-exporter and kube-state-metrics series
# for the synthetic cluster of tests/tools/gen_advisor_data.py (fixed seed), backfilled with
# promtool. adv_prom_start PREFIX: generates, backfills and starts it, sets PROM (its URL) and
# writes the scenario's policy to $E2E_TMP/policy.json; the checks are named PREFIX.backfill and
# PREFIX.prometheus-ready. Returns 1 (after a failed check) when prometheus is not installed.
ADV_TOOLS="$(cd "$(dirname "$0")/../tools" && pwd)"
ADV_UNTIL=2026-11-30T00:00:00Z

adv_prom_start() {
    if ! command -v prometheus >/dev/null 2>&1 || ! command -v promtool >/dev/null 2>&1; then
        fail "$1.prometheus-installed" "prometheus and promtool (Debian package prometheus) are missing"
        return 1
    fi
    # ~1.5 M samples. One block for the whole range (--max-block-duration): promtool otherwise
    # reads the file again for every 2-hour block, a hundred times slower.
    python3 "$ADV_TOOLS/gen_advisor_data.py" > "$E2E_TMP/data.om" 2> "$E2E_TMP/gen.err" \
        || fail "$1.generate" "$(tail -n 3 "$E2E_TMP/gen.err")"
    python3 "$ADV_TOOLS/advisor_expect.py" --write-policy "$E2E_TMP/policy.json"
    prom_backfill_start "$1" --max-block-duration=192h || return 0
    rm -f "$E2E_TMP/data.om"
    ADV_PROM_PID=$PROM_PID
}
