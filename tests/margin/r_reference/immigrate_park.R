# Reference values from the CRAN package Immigrate 0.2.1 on its own example data `park`
# (UCI Parkinsons without its first row, standardised). Run from this folder:
#   Rscript immigrate_park.R        (writes the CSV files the tests read)
#   Rscript immigrate_park.R DIR data   (also writes park.csv, the data, into DIR)
# Built here from github:cran/Immigrate (git archive) with Debian r-base-core,
# r-cran-rcpp and r-cran-proc, then `R CMD INSTALL Immigrate`.
suppressMessages(library(Immigrate))
args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args) > 0) args[1] else "."
data(park)
xx <- park$xx
yy <- park$yy
if (length(args) > 1) write.csv(cbind(y = yy, xx), file.path(out, "park.csv"), row.names = FALSE)
# IMMIGRATE with the package defaults: sig = 1, epsilon = 0.01, max_iter = 10, W0 = I / ||I||_F
re <- Immigrate(xx, yy)
write.csv(re$w, file.path(out, "immigrate_w.csv"), row.names = FALSE)
# at most 3 iterations (epsilon = -1 would never stop early) at sigma = 0.5; the package
# stops after 2 because its cost proxy becomes NaN (0 * log(0) in its entropy sum)
re3 <- Immigrate(xx, yy, sig = 0.5, epsilon = -1, max_iter = 3)
write.csv(re3$w, file.path(out, "immigrate_w_sig05_3iter.csv"), row.names = FALSE)
# IM4E defaults (the function always uses sig = 1, epsilon = 0.01, max_iter = 10)
im <- IM4E(xx, yy)
# predictions of eq. (3.18) with the default model, on the training data
pred <- predict(re, xx, yy, xx, type = "class")
write.csv(data.frame(iter_immigrate = re$iter_num, iter_im4e = im$iter_num,
                     iter_sig05 = re3$iter_num, cost_sig05 = re3$c),
          file.path(out, "iterations.csv"), row.names = FALSE)
write.csv(data.frame(im4e = as.numeric(im$w)), file.path(out, "im4e_w.csv"), row.names = FALSE)
write.csv(data.frame(pred = pred), file.path(out, "predict.csv"), row.names = FALSE)
