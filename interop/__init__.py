"""Scripts run with PaddlePaddle 2.6.2's venv (`make interop`); `synth` and `run_corpus` run in
both venvs or in paddle_nb's."""
