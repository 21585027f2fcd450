"""The desc layer: a program described as protobuf messages.

`framework_pb2` is generated from `proto/framework.proto` (run `make proto`; never edit it by
hand). Its messages (ProgramDesc > BlockDesc > VarDesc / OpDesc) use the names and field
numbers of PaddlePaddle 2.6.2's legacy framework.proto, so a `.pdmodel` written by
PaddlePaddle parses here and the other way round. They live in a package (`paddle_nb.proto`)
and a descriptor pool of paddle_nb's own, so PaddlePaddle can be imported into the same
process. Every other layer reads and writes programs through these messages; this package
imports nothing else from paddle_nb.
"""
from paddle_nb.proto import framework_pb2

__all__ = ["framework_pb2", "unknown_fields_of"]


def unknown_fields_of(message):
    """The fields of ``message`` its schema does not know, each with ``field_number``,
    ``wire_type`` and ``data``; under every protobuf paddle_nb supports (3.20 has only the
    ``UnknownFields()`` method, which protobuf 5 removed for ``unknown_fields``)."""
    try:
        from google.protobuf import unknown_fields
    except ImportError:
        return list(message.UnknownFields())
    return list(unknown_fields.UnknownFieldSet(message))
