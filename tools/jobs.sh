# Background jobs for shell scripts (sourced by tools/test_all.sh and .ci/run): each job's output goes to its own log,
# printed whole if it fails; every job is stopped when the script exits, an interrupt included.
jobs_logs=$(mktemp -d)
declare -A job_pids=()
job() {  # job NAME COMMAND...: run in the background, its output to $jobs_logs/NAME
  local name=$1; shift
  "$@" >"$jobs_logs/$name" 2>&1 &
  job_pids[$name]=$!
}
finish() {  # finish NAME: wait for a job; its output, whole, if it failed; its status
  local status=0
  wait "${job_pids[$1]}" || status=$?
  if [ "$status" -ne 0 ]; then echo "== the $1 job failed (exit $status); its output:"; cat "$jobs_logs/$1"; fi
  return "$status"
}
finish_all() {  # finish_all NAME...: wait for each; a line for each that passed; status 1 if any failed
  local name failed=()
  for name in "$@"; do
    if finish "$name"; then echo "== the $name job passed: $(tail -n 1 "$jobs_logs/$name")"; else failed+=("$name"); fi
  done
  [ "${#failed[@]}" -eq 0 ] || { echo "failed jobs: ${failed[*]}" >&2; return 1; }
}
stop_jobs() {  # on any exit: no job outlives the script
  local pid
  for pid in "${job_pids[@]}"; do kill "$pid" || true; done 2>/dev/null  # (those that ended: nothing to do)
  rm -rf "$jobs_logs"
}
trap stop_jobs EXIT
trap "exit 130" INT TERM  # (an interrupt runs the EXIT trap too)
