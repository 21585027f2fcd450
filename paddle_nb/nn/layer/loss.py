"""Loss layers of paddle.nn: CrossEntropyLoss, MSELoss, L1Loss, BCELoss, NLLLoss, ..."""

__all__ = []
