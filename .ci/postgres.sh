# Sourced by .ci/run: a throwaway PostgreSQL cluster for the Postgres test suite.
# `start_postgres` installs PostgreSQL from the distribution's packages when it is missing,
# creates a cluster in a temporary folder, starts it on a free loopback port, exports
# TARA_BOT_TEST_POSTGRES (the URL of an empty database on it) and stops and removes it when
# the calling script exits.

pg_bin() {
    ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
}

# Runs a PostgreSQL program as the cluster's owner (initdb refuses root).
as_pg() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

stop_postgres() {
    if [ -n "${TARA_PG_DIR:-}" ] && [ -d "$TARA_PG_DIR" ]; then
        as_pg "$(pg_bin)/pg_ctl" -D "$TARA_PG_DIR/data" -m immediate stop >/dev/null 2>&1 || true
        rm -rf "$TARA_PG_DIR"
    fi
}

start_postgres() {
    if [ -z "$(pg_bin)" ]; then
        echo "ci: installing PostgreSQL from the distribution's packages"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq postgresql >/dev/null
    fi
    local bin port
    bin="$(pg_bin)"
    if [ -z "$bin" ]; then
        echo "ci: PostgreSQL is not installed and could not be installed" >&2
        return 1
    fi
    TARA_PG_DIR="$(mktemp -d /tmp/tara-pg.XXXXXX)"
    export TARA_PG_DIR
    if [ "$(id -u)" = 0 ]; then
        chown postgres: "$TARA_PG_DIR"
    fi
    trap stop_postgres EXIT
    as_pg "$bin/initdb" -D "$TARA_PG_DIR/data" --no-locale -E UTF8 --auth=trust -U tara >/dev/null
    port=$((20000 + RANDOM % 20000))
    while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
        port=$((port + 1))
    done
    # A throwaway cluster: no fsync, enough connections for the tests running in parallel.
    as_pg "$bin/pg_ctl" -D "$TARA_PG_DIR/data" -l "$TARA_PG_DIR/log" -w \
        -o "-p $port -k $TARA_PG_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=400" \
        start >/dev/null
    as_pg "$bin/createdb" -h 127.0.0.1 -p "$port" -U tara tara_test
    export TARA_BOT_TEST_POSTGRES="postgres://tara@127.0.0.1:$port/tara_test"
    echo "ci: PostgreSQL $("$bin/postgres" --version | awk '{print $3}') at $TARA_BOT_TEST_POSTGRES"
}
