"""GP local feature selection (Pichara and Soto 2014): Tables 1, 3, 4 and 5, Figs. 3-4, speed."""
