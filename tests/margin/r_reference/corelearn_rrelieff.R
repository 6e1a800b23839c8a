# CORElearn's RReliefF scores of one table, printed one per line (17 digits).
# Usage: Rscript corelearn_rrelieff.R TABLE.csv ESTIMATOR K SIGMA
#   TABLE.csv: the features and a last column "y" (the continuous target);
#   ESTIMATOR: RReliefFequalK (K = kNearestEqual) or RReliefFexpRank
#   (K = kNearestExpRank, SIGMA = quotientExpRankDistance).
# ReliefIterations = 0: every row is a reference. numAttrProportionEqual = 0 and
# numAttrProportionDifferent = 1: diff = |x - x'| / range (CORElearn's default,
# 0.04 and 0.1, is a ramp). CORElearn 1.57.3.1 built from github.com/cran/CORElearn
# (R CMD INSTALL, with rpart.plot from github.com/cran/rpart.plot) on Debian's R 4.2.
suppressMessages(library(CORElearn))
args <- commandArgs(trailingOnly = TRUE)
d <- read.csv(args[1])
est <- args[2]
k <- as.integer(args[3])
common <- list(formula = y ~ ., data = d, estimator = est, ReliefIterations = 0,
               numAttrProportionEqual = 0, numAttrProportionDifferent = 1)
extra <- if (est == "RReliefFequalK") list(kNearestEqual = k) else
  list(kNearestExpRank = k, quotientExpRankDistance = as.numeric(args[4]))
t0 <- proc.time()[["elapsed"]]
w <- do.call(attrEval, c(common, extra))
t1 <- proc.time()[["elapsed"]]
cat(sprintf("%.17g", w), sep = "\n")
cat(sprintf("time %.6f\n", t1 - t0))
