"""The reward layer: verdicts to rewards, advantages and trainer-ready tensors; trainer adapters."""
