"""Relief family and IMMIGRATE (Zhao, Hong and Liu 2020): Tables 1-3, Fig. 3, timings."""
