"""Tensor-array ops are raw ops (the array lives in the scope, its loop writes it in step
scopes): the harness cannot run them alone, so RAW says where they are tested."""

_WHERE = ("tests/static/test_tensor_array.py: each op against NumPy, inside and outside "
          "while_loop; tests/api/test_static_api.py: PaddlePaddle 2.6.2's programs")

RAW = {
    "write_to_array": _WHERE,
    "read_from_array": _WHERE,
    "lod_array_length": _WHERE,
    "tensor_array_to_tensor": _WHERE,
    "tensor_array_to_tensor_grad": ("tests/static/test_tensor_array.py: gradients through "
                                    "arrays, in and out of while_loop, against central "
                                    "differences"),
}

RAW["print"] = ("tests/static/test_program.py: the forward print and its gradient (another "
                "print, the identity), against what it writes to stdout")
