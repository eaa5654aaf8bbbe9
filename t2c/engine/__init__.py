"""The batch engine: kernel x stage targets, their cache and state, and the executors."""
