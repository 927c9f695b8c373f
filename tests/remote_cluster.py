"""A Remote Execution cluster on loopback for the tests of remote checks.

    python remote_cluster.py DIR [--slots N] [--tamper-marker TEXT]

Starts, all inside DIR (a temp folder of the tests):
  - a private PostgreSQL (Debian's), listening on a Unix socket in DIR only
    (no TCP), the database's schema by `bgd migrate apply`: BuildGrid's
    scheduler needs PostgreSQL and refuses SQLite;
  - BuildGrid (`bgd server start`) on 127.0.0.1 with an in-memory CAS and
    action cache, instance `main`, on two ports: plain gRPC, and gRPC over
    TLS with a certificate made here for 127.0.0.1 and signed by a CA made
    here (DIR/tls/ca.pem, the one file a client trusts for it);
  - remote_worker.py with N slots, which runs the actions on this machine.
Then prints `ready PORT TLS_PORT CA_FILE` and waits for its stdin to close
(the tests hold it; it closes when the test process ends, however it
ends), and stops them all. Each step is bounded in time; a failed one prints its log and exits 1.

Run as root, PostgreSQL (which refuses root) runs as the `postgres` or
`nobody` user through setpriv.
"""

import os
import pwd
import shutil
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.path.dirname(sys.executable)


def free_ports(n):
    """N distinct free ports (each held until all are picked)."""
    sockets = [socket.socket() for _ in range(n)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def fail(what, log=None):
    text = ""
    if log and os.path.exists(log):
        with open(log, errors="replace") as f:
            text = f.read()[-4000:]
    print(f"cluster: {what}\n{text}", file=sys.stderr, flush=True)
    sys.exit(1)


def pg_program(name):
    found = shutil.which(name)
    if found:
        return found
    for version in ("17", "16", "15", "14", "13"):
        path = f"/usr/lib/postgresql/{version}/bin/{name}"
        if os.path.exists(path):
            return path
    fail(f"{name} not found: install Debian's postgresql")


def as_postgres(argv):
    """PostgreSQL refuses to run as root: drop to an unprivileged user."""
    if os.geteuid() != 0:
        return argv
    for user in ("postgres", "nobody"):
        try:
            entry = pwd.getpwnam(user)
        except KeyError:
            continue
        return ["setpriv", f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}", "--clear-groups", *argv]
    fail("no unprivileged user to run PostgreSQL as")


def start_postgres(dir):
    data, sock = os.path.join(dir, "pg"), os.path.join(dir, "sock")
    os.makedirs(data)
    os.makedirs(sock)
    if os.geteuid() == 0:
        user = "postgres" if any(p.pw_name == "postgres" for p in pwd.getpwall()) else "nobody"
        entry = pwd.getpwnam(user)
        for path in (dir, data, sock):
            os.chown(path, entry.pw_uid, entry.pw_gid)
    log = os.path.join(sock, "postgres.log")
    init = subprocess.run(
        as_postgres([pg_program("initdb"), "-D", data, "-U", "bgd", "--auth=trust", "-E", "UTF8", "--no-instructions"]),
        capture_output=True, timeout=120, text=True,
    )
    if init.returncode != 0:
        fail(f"initdb failed: {init.stderr}")
    options = f"-c listen_addresses='' -c unix_socket_directories={sock} -c fsync=off -c full_page_writes=off"
    start = subprocess.run(
        as_postgres([pg_program("pg_ctl"), "-D", data, "-l", log, "-o", options, "-w", "-t", "60", "start"]),
        capture_output=True, timeout=90, text=True,
    )
    if start.returncode != 0:
        fail("PostgreSQL did not start", log)
    created = subprocess.run(
        [pg_program("psql"), "-h", sock, "-U", "bgd", "-d", "postgres", "-qc", "create database bgd"],
        capture_output=True, timeout=60, text=True,
    )
    if created.returncode != 0:
        fail(f"create database failed: {created.stderr}")
    return data, sock


def stop_postgres(data):
    subprocess.run(
        as_postgres([pg_program("pg_ctl"), "-D", data, "-m", "immediate", "-w", "-t", "30", "stop"]),
        capture_output=True, timeout=60,
    )


# Every worker slot holds a long-poll bot session open: the gRPC threads
# (BuildGrid's default is 5 per CPU, 10 on two cores) must outnumber the
# slots plus the clients' calls, else it answers RESOURCE_EXHAUSTED.
CONFIG = """\
thread-pool-size: {threads}
server:
  - !channel
    address: "127.0.0.1:{port}"
    insecure-mode: true
  - !channel
    address: "127.0.0.1:{tls_port}"
    insecure-mode: false
    credentials:
      tls-server-key: {tls}/server.key
      tls-server-cert: {tls}/server.pem
authorization:
  method: none
connections:
  - !sql-connection &sql
    # psycopg2 by name: with the bare postgresql:// form SQLAlchemy picks
    # another driver and every action takes seconds.
    connection-string: postgresql+psycopg2://bgd@/bgd?host={sock}
    pool-size: {pool}
    pool-timeout: 30
    max-overflow: 10
storages:
  - !lru-storage &cas
    size: 512MB
caches:
  - !lru-action-cache &ac
    storage: *cas
    max-cached-refs: 4096
    allow-updates: true
    cache-failed-actions: true
schedulers:
  - !sql-scheduler &scheduler
    sql: *sql
    storage: *cas
    action-cache: *ac
    poll-interval: 0.05
    bot-poll-interval: 0.05
    property-set: !dynamic-property-set
      match-property-keys: [OSFamily]
      wildcard-property-keys: [container-image]
instances:
  - name: main
    services:
      - !action-cache
        cache: *ac
      - !execution
        scheduler: *scheduler
      - !cas
        storage: *cas
      - !bytestream
        storage: *cas
"""


def make_certificates(tls):
    """A CA, and a server certificate it signs for 127.0.0.1 (a
    certificate that is its own CA is refused as a server's by rustls),
    both valid for a day."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    os.makedirs(tls)
    now = datetime.datetime.now(datetime.timezone.utc)

    def certificate(subject, key, issuer, issuer_key, ca):
        builder = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
            .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        )
        if not ca:
            builder = builder.add_extension(
                x509.SubjectAlternativeName(
                    [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]
                ),
                critical=False,
            )
        return builder.sign(issuer_key, hashes.SHA256())

    ca_key, server_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca = certificate("run-check test CA", ca_key, "run-check test CA", ca_key, True)
    server = certificate("127.0.0.1", server_key, "run-check test CA", ca_key, False)
    pem = serialization.Encoding.PEM
    with open(os.path.join(tls, "ca.pem"), "wb") as f:
        f.write(ca.public_bytes(pem))
    with open(os.path.join(tls, "server.pem"), "wb") as f:
        f.write(server.public_bytes(pem))
    with open(os.path.join(tls, "server.key"), "wb") as f:
        f.write(
            server_key.private_bytes(
                pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )


def wait_for_port(port, process, log, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            fail(f"exited ({process.returncode})", log)
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    fail(f"did not listen on 127.0.0.1:{port} within {seconds}s", log)


def main():
    dir = os.path.abspath(sys.argv[1])
    slots = "4"
    tamper = []
    args = sys.argv[2:]
    while args:
        if args[0] == "--slots":
            slots, args = args[1], args[2:]
        elif args[0] == "--tamper-marker":
            tamper, args = ["--tamper-marker", args[1]], args[2:]
        else:
            fail(f"unknown argument {args[0]}")
    os.makedirs(dir, exist_ok=True)
    children = []
    data = None
    try:
        data, sock = start_postgres(dir)
        url = f"postgresql+psycopg2://bgd@/bgd?host={sock}"
        migrate = subprocess.run(
            [os.path.join(BIN, "bgd"), "migrate", "apply", url], capture_output=True, timeout=120, text=True
        )
        if migrate.returncode != 0:
            fail(f"bgd migrate apply failed: {migrate.stderr[-2000:]}")
        port, tls_port = free_ports(2)
        tls = os.path.join(dir, "tls")
        make_certificates(tls)
        config = os.path.join(dir, "bgd.yml")
        with open(config, "w") as f:
            f.write(
                CONFIG.format(
                    port=port, tls_port=tls_port, tls=tls, sock=sock, threads=4 * int(slots) + 16, pool=int(slots) + 8
                )
            )
        log = os.path.join(dir, "bgd.log")
        with open(log, "w") as out:
            server = subprocess.Popen(
                [os.path.join(BIN, "bgd"), "server", "start", config],
                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
            )
        children.append(server)
        wait_for_port(port, server, log, 120)
        wait_for_port(tls_port, server, log, 60)
        work = os.path.join(dir, "work")
        os.makedirs(work)
        worker_log = os.path.join(dir, "worker.log")
        with open(worker_log, "w") as out:
            worker = subprocess.Popen(
                [sys.executable, os.path.join(HERE, "remote_worker.py"), "--remote", f"http://127.0.0.1:{port}",
                 "--instance", "main", "--slots", slots, "--work", work, *tamper],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=out,
            )
        children.append(worker)
        if worker.stdout.readline().strip() != b"worker ready":
            fail("the worker did not start", worker_log)
        print(f"ready {port} {tls_port} {os.path.join(tls, 'ca.pem')}", flush=True)
        sys.stdin.read()
    finally:
        for child in reversed(children):
            child.kill()
            child.wait()
        if data:
            stop_postgres(data)
        shutil.rmtree(dir, ignore_errors=True)


if __name__ == "__main__":
    main()
