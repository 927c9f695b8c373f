"""A Remote Execution worker for the tests of remote checks (tests/remote.rs).

It takes leases from BuildGrid's bots service (the Remote Workers API,
google.devtools.remoteworkers.v1test2) and runs each action on this machine,
in a fresh folder built from the action's input root, with the command's
arguments, working directory and environment (over a PATH and HOME of its
own), and the action's timeout. Each of `--slots` threads is one bot session
of capacity 1. While an action runs, the session is polled, so a lease the
server cancels (the client's CancelOperation) kills the action's process
group. Stdout, stderr and the declared output files go to the CAS; the
ActionResult is the lease's result.

    python remote_worker.py --remote http://127.0.0.1:PORT --instance main \
        --slots 4 --work DIR [--tamper-marker TEXT]

With `--tamper-marker`, an action whose stdout contains TEXT gets a result
whose stdout digest is the real output's but whose inline `stdout_raw` is
other content (BuildGrid's CAS refuses an upload that does not match its
digest, so the lie is in the result the cluster hands back): the tests'
tampered blob.
"""

import argparse
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import grpc
from google.protobuf import any_pb2

from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2 as re_pb2
from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2_grpc as re_grpc
from buildgrid._protos.google.devtools.remoteworkers.v1test2 import bots_pb2
from buildgrid._protos.google.devtools.remoteworkers.v1test2 import bots_pb2_grpc
from buildgrid._protos.google.devtools.remoteworkers.v1test2 import worker_pb2
from buildgrid.server.client.cas import download

# Lease and bot states of bots.proto.
PENDING, ACTIVE, COMPLETED, CANCELLED = 1, 2, 4, 5
BOT_OK = 1
# google.rpc.Code.DEADLINE_EXCEEDED
DEADLINE_EXCEEDED = 4


def digest_of(data):
    return re_pb2.Digest(hash=hashlib.sha256(data).hexdigest(), size_bytes=len(data))


def put_blobs(cas, instance, blobs):
    """Stores blobs ({digest: data}) in the CAS in one batch."""
    if not blobs:
        return
    requests = [
        re_pb2.BatchUpdateBlobsRequest.Request(digest=d, data=data) for d, data in blobs
    ]
    response = cas.BatchUpdateBlobs(
        re_pb2.BatchUpdateBlobsRequest(instance_name=instance, requests=requests), timeout=30
    )
    for r in response.responses:
        if r.status.code != 0:
            raise RuntimeError(f"BatchUpdateBlobs: {r.status.message}")


class Bot:
    def __init__(self, args, slot, channel):
        self.args = args
        self.bot_id = f"test-worker-{os.getpid()}-{slot}"
        self.stub = bots_pb2_grpc.BotsStub(channel)
        self.cas = re_grpc.ContentAddressableStorageStub(channel)
        self.channel = channel
        worker = worker_pb2.Worker()
        device = worker.devices.add(handle=self.bot_id)
        device.properties.add(key="OSFamily", value="linux")
        self.session = bots_pb2.BotSession(bot_id=self.bot_id, status=BOT_OK, worker=worker)

    def update(self, timeout):
        self.session = self.stub.UpdateBotSession(
            bots_pb2.UpdateBotSessionRequest(name=self.session.name, bot_session=self.session),
            timeout=timeout,
        )

    def serve(self):
        self.session = self.stub.CreateBotSession(
            bots_pb2.CreateBotSessionRequest(parent=self.args.instance, bot_session=self.session),
            timeout=10,
        )
        while True:
            leases = [lease for lease in self.session.leases if lease.state in (PENDING, ACTIVE)]
            if not leases:
                # Long-polls for work (the server answers at 80% of it).
                self.update(timeout=5)
                continue
            lease = leases[0]
            if lease.state == PENDING:
                lease.state = ACTIVE
                self.update(timeout=5)
                continue
            self.run_lease(lease)

    def run_lease(self, lease):
        action = re_pb2.Action()
        if not lease.payload.Unpack(action):
            digest = re_pb2.Digest()
            lease.payload.Unpack(digest)
            with download(self.channel, instance=self.args.instance) as d:
                action = d.get_message(digest, re_pb2.Action())
        try:
            result, status = self.execute(lease.id, action)
        except Exception as err:  # an infrastructure failure of the worker
            result, status = re_pb2.ActionResult(), (13, f"worker: {err}")
        # The lease may have been cancelled while the action ran: it is gone
        # from the session then.
        for current in self.session.leases:
            if current.id == lease.id and current.state == ACTIVE:
                current.state = COMPLETED
                current.status.code, current.status.message = status
                packed = any_pb2.Any()
                packed.Pack(result)
                current.result.CopyFrom(packed)
        self.update(timeout=10)

    def cancelled(self, lease_id):
        self.update(timeout=5)
        return not any(
            lease.id == lease_id and lease.state == ACTIVE for lease in self.session.leases
        )

    def execute(self, lease_id, action):
        root = tempfile.mkdtemp(prefix="exec-", dir=self.args.work)
        try:
            with download(self.channel, instance=self.args.instance) as d:
                command = d.get_message(action.command_digest, re_pb2.Command())
                d.download_directory(action.input_root_digest, root)
            return self.spawn(lease_id, action, command, root)
        finally:
            shutil.rmtree(root, ignore_errors=True)

    def spawn(self, lease_id, action, command, root):
        cwd = os.path.join(root, command.working_directory)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": root}
        env.update({v.name: v.value for v in command.environment_variables})
        out_path, err_path = os.path.join(self.args.work, f"{lease_id.replace('/', '_')}.out"), None
        err_path = out_path[:-4] + ".err"
        timeout = action.timeout.seconds + action.timeout.nanos / 1e9 if action.HasField("timeout") else None
        started = time.monotonic()
        status = (0, "")
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            proc = subprocess.Popen(
                list(command.arguments), cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                stdout=out, stderr=err, start_new_session=True,
            )
            while proc.poll() is None:
                time.sleep(0.1)
                if timeout is not None and time.monotonic() - started > timeout:
                    os.killpg(proc.pid, signal.SIGKILL)
                    status = (DEADLINE_EXCEEDED, f"action timed out after {timeout:g}s")
                elif self.cancelled(lease_id):
                    os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        with open(out_path, "rb") as f:
            stdout = f.read()
        with open(err_path, "rb") as f:
            stderr = f.read()
        os.unlink(out_path)
        os.unlink(err_path)
        return self.result(command, root, cwd, proc.returncode, stdout, stderr), status

    def result(self, command, root, cwd, code, stdout, stderr):
        result = re_pb2.ActionResult(exit_code=code if code >= 0 else 128 - code)
        result.execution_metadata.worker = self.bot_id
        blobs = []
        out_digest = digest_of(stdout)
        marker = self.args.tamper_marker
        blobs.append((out_digest, stdout))
        if marker and marker.encode() in stdout:
            # The digest of the real output, the content of another, inline
            # (BuildGrid's CAS checks what is uploaded, so the lie is in
            # the result the cluster hands back).
            result.stdout_raw = stdout.replace(marker.encode(), b"tampered!")
        result.stdout_digest.CopyFrom(out_digest)
        err_digest = digest_of(stderr)
        blobs.append((err_digest, stderr))
        result.stderr_digest.CopyFrom(err_digest)
        for path in list(command.output_paths) or list(command.output_files):
            full = os.path.join(cwd, path)
            if os.path.isfile(full):
                with open(full, "rb") as f:
                    data = f.read()
                d = digest_of(data)
                blobs.append((d, data))
                result.output_files.add(path=path, digest=d, is_executable=os.access(full, os.X_OK))
        put_blobs(self.cas, self.args.instance, blobs)
        return result


def serve(bot):
    try:
        bot.serve()
    except Exception:
        import traceback

        traceback.print_exc()
        os._exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--remote", required=True)
    parser.add_argument("--instance", default="main")
    parser.add_argument("--slots", type=int, default=4)
    parser.add_argument("--work", required=True)
    parser.add_argument("--tamper-marker")
    args = parser.parse_args()
    target = args.remote.removeprefix("http://").removeprefix("grpc://")
    channel = grpc.insecure_channel(target)
    threads = []
    for slot in range(args.slots):
        bot = Bot(args, slot, channel)
        thread = threading.Thread(target=serve, args=(bot,), daemon=True)
        thread.start()
        threads.append(thread)
    print("worker ready", flush=True)
    # Ends when the tests close its stdin (or kill it), or a bot dies.
    try:
        sys.stdin.read()
    finally:
        os._exit(0)


if __name__ == "__main__":
    main()
