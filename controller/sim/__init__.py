"""The simulated table: seats and a remote in memory, each screen a luma ``dummy`` device."""
