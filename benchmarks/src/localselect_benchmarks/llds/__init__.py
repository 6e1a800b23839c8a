"""LLDS (lift-based local discriminative subspaces): Tables 5, 7 and 8, search speed."""
