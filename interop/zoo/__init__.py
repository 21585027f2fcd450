"""The model zoos: PaddleClas, PaddleDetection, PaddleSeg and PaddleNLP models, exported as their
own tools export them (``paddle.jit.to_static`` + ``paddle.jit.save``); ``interop/make_zoo.py``
writes them, ``tests/compat/test_paddle26_zoo.py`` runs them here. PaddlePaddle's venv only
(but ``run_zoo``, paddle_nb's side)."""
