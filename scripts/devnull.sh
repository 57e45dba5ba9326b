# Sourced by scripts/test.sh and benchmarks/run.sh.
# On some sandboxes /dev/null is a regular file that collects what programs throw away. Cargo
# gives it to `rustc -` as stdin when it probes the target, and rustc then fails compiling
# that junk (seen here: a build script's error message). Put the device back when we may;
# otherwise empty the file before each cargo step.
if [ ! -c /dev/null ]; then
    echo "$0: /dev/null is not a device; recreating it" >&2
    rm -f /dev/null && mknod -m 666 /dev/null c 1 3 || true
fi
empty_devnull() {
    if [ -f /dev/null ]; then : >/dev/null; fi
}
