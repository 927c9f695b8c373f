"""A gRPC proxy that tampers with the blobs a Remote Execution client reads.

    python remote_tamper_proxy.py UPSTREAM_PORT

Listens on a free port of 127.0.0.1, prints `ready PORT`, and forwards every
call to 127.0.0.1:UPSTREAM_PORT (BuildGrid, tests/remote_cluster.py) as raw
bytes, with the caller's metadata; it stops when its stdin closes (the test
holds it). Only the replies of the CAS's reads are changed: in each blob of
a `BatchReadBlobs` reply and in each chunk of a `ByteStream.Read` reply, the
first byte is flipped, the length kept. What a client then holds is bytes
that do not hash to the digest it asked for: the man in the middle (or a
cluster whose storage went bad) that the client's digest check is for. The
CAS's own upload check cannot be bypassed this way round, so this is the
one way to test that check against a real server.

Each tampered reply is counted on stderr (`tampered METHOD`).
"""

import sys
import threading
from concurrent import futures

import grpc

from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2 as re_pb2
from buildgrid._protos.google.bytestream import bytestream_pb2

CAS = "/build.bazel.remote.execution.v2.ContentAddressableStorage/"
BATCH_READ = CAS + "BatchReadBlobs"
BYTESTREAM_READ = "/google.bytestream.ByteStream/Read"
# The calls a client streams from the server, and those it streams to it;
# every other call is unary both ways.
SERVER_STREAMING = {
    BYTESTREAM_READ,
    "/build.bazel.remote.execution.v2.Execution/Execute",
    "/build.bazel.remote.execution.v2.Execution/WaitExecution",
    CAS + "GetTree",
}
CLIENT_STREAMING = {"/google.bytestream.ByteStream/Write"}
LIMIT = 64 * 1024 * 1024
OPTIONS = [("grpc.max_receive_message_length", LIMIT), ("grpc.max_send_message_length", LIMIT)]
# No call of the tests lasts longer: a stuck upstream ends the call.
CALL_TIMEOUT = 300


def flip(data):
    return bytes([data[0] ^ 0xFF]) + data[1:] if data else data


def tampered(method, reply):
    if method == BATCH_READ:
        message = re_pb2.BatchReadBlobsResponse.FromString(reply)
        for one in message.responses:
            one.data = flip(one.data)
    elif method == BYTESTREAM_READ:
        message = bytestream_pb2.ReadResponse.FromString(reply)
        message.data = flip(message.data)
    else:
        return reply
    print(f"tampered {method}", file=sys.stderr, flush=True)
    return message.SerializeToString()


class Forward(grpc.GenericRpcHandler):
    def __init__(self, channel):
        self.channel = channel

    def service(self, details):
        method = details.method
        raw = {"request_serializer": None, "response_deserializer": None}

        def metadata(context):
            return [(k, v) for k, v in context.invocation_metadata() if not k.startswith(":")]

        def relay(call, context):
            """Runs `call`, the upstream's error becoming this call's."""
            try:
                return call()
            except grpc.RpcError as err:
                context.abort(err.code(), err.details() or "")

        if method in SERVER_STREAMING:
            upstream = self.channel.unary_stream(method, **raw)

            def unary_stream(request, context):
                replies = relay(lambda: upstream(request, metadata=metadata(context), timeout=CALL_TIMEOUT), context)
                try:
                    for reply in replies:
                        yield tampered(method, reply)
                except grpc.RpcError as err:
                    context.abort(err.code(), err.details() or "")

            return grpc.unary_stream_rpc_method_handler(unary_stream)
        if method in CLIENT_STREAMING:
            upstream = self.channel.stream_unary(method, **raw)
            return grpc.stream_unary_rpc_method_handler(
                lambda requests, context: relay(
                    lambda: upstream(requests, metadata=metadata(context), timeout=CALL_TIMEOUT), context
                )
            )
        upstream = self.channel.unary_unary(method, **raw)
        return grpc.unary_unary_rpc_method_handler(
            lambda request, context: tampered(
                method,
                relay(lambda: upstream(request, metadata=metadata(context), timeout=CALL_TIMEOUT), context),
            )
        )


def main():
    upstream = int(sys.argv[1])
    channel = grpc.insecure_channel(f"127.0.0.1:{upstream}", options=OPTIONS)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16), options=OPTIONS)
    server.add_generic_rpc_handlers((Forward(channel),))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    print(f"ready {port}", flush=True)
    # Ends when the test closes its stdin (or kills it).
    stop = threading.Thread(target=sys.stdin.read, daemon=True)
    stop.start()
    stop.join()
    server.stop(grace=None)


if __name__ == "__main__":
    main()
