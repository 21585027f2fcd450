"""Scripts run with PaddlePaddle 2.6.2's venv (make interop), and `synth`, which both venvs import."""
