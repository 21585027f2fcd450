"""Recurrent layers of paddle.nn: LSTM/GRU/SimpleRNN (PaddlePaddle's rnn op, run as step scopes) and their cells."""

__all__ = []
