# Sourced by the tools (`. tools/write_to.sh`): `write_to FILE COMMAND...`
# runs COMMAND with its stdout written the way the project writes every
# file it keeps (kalah_db::safe): under FILE.partial, locked against a
# second writer (flock), synced, and renamed over FILE only when COMMAND
# succeeds. Otherwise FILE stays as it was and the partial file goes: a
# failed or killed run never leaves a committed result cut short.
write_to() {
    local target=$1
    shift
    local partial="$target.partial"
    mkdir -p "$(dirname "$target")"
    (
        # Opened to append: nothing is truncated before the lock is held.
        exec 9>>"$partial"
        flock -n 9 || { echo "$partial: another writer holds it; wait for it to finish" >&2; exit 2; }
        if "$@" >"$partial"; then
            sync "$partial" && mv -f "$partial" "$target"
        else
            rc=$?
            rm -f "$partial"
            echo "$target: left as it was (the command failed with exit code $rc)" >&2
            exit "$rc"
        fi
    )
}
