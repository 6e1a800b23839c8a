"""LFS (Armanfard, Reilly and Komeili 2016): Table 1 and the LP core against LFSpy."""
