"""The model zoos: PaddleClas, PaddleDetection, PaddleSeg and PaddleNLP models, exported as their
own tools export them (``paddle.jit.to_static`` + ``paddle.jit.save``). ``models.py`` (the
models) runs in PaddlePaddle's venv, for ``interop/make_zoo.py``; ``check_zoo.py`` runs them in
paddle_nb's, as ``tests/compat/test_paddle26_zoo.py`` does."""
