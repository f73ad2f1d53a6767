"""What the tests share and test nothing themselves: the independent oracle and simulator (no code from
acptools), random test tasks, the scripted model API server, server processes, and where the data lives."""
