# CORElearn's attrEval scores of mixed tables (factors, NA, distance ties), and
# the real tables they are computed on. Called by make_corelearn_mixed.py.
#
# Usage:
#   Rscript corelearn_mixed.R export NAME OUT.csv
#     writes the real table NAME (birthwt, Cars93, mpg, airquality; birthwt_low
#     and mpg_drv with class labels), prepared as
#     below, with its target in the last column "y" and factors as strings;
#   Rscript corelearn_mixed.R score TABLE.csv FACTORS ESTIMATOR K SIGMA EQUAL DIFFERENT
#     prints CORElearn's scores of TABLE.csv (last column "y" the target), one
#     per line (17 digits), then "time SECONDS". FACTORS: comma-separated names
#     of the columns read as factors ("-" for none); "NA" marks a missing value.
#     ESTIMATOR: RReliefFequalK (K = kNearestEqual) or RReliefFexpRank
#     (K = kNearestExpRank, SIGMA = quotientExpRankDistance); for class labels
#     (y read as a factor) ReliefFequalK or ReliefFexpRank. EQUAL, DIFFERENT:
#     numAttrProportionEqual and numAttrProportionDifferent (0 and 1 give the
#     plain range-scaled diff; CORElearn's defaults 0.04 and 0.1 a ramp).
#     ReliefIterations = 0: every row is a reference.
# CORElearn 1.57.3.1 built from github.com/cran/CORElearn (R CMD INSTALL, with
# rpart.plot from github.com/cran/rpart.plot) on Debian's R 4.2 (MASS, ggplot2
# from Debian's r-cran-mass, r-cran-ggplot2).
args <- commandArgs(trailingOnly = TRUE)
if (args[1] == "export") {
  name <- args[2]
  if (name == "birthwt") {            # MASS: birth weight (g), 189 births
    d <- MASS::birthwt
    d$low <- NULL
    for (v in c("race", "smoke", "ht", "ui")) d[[v]] <- as.character(d[[v]])
    d$y <- d$bwt
    d$bwt <- NULL
  } else if (name == "Cars93") {      # MASS: 1993 car models, price; NA in two columns
    d <- MASS::Cars93
    d <- d[, c("Type", "MPG.city", "MPG.highway", "AirBags", "DriveTrain", "Cylinders",
               "EngineSize", "Horsepower", "RPM", "Man.trans.avail", "Fuel.tank.capacity",
               "Passengers", "Length", "Wheelbase", "Width", "Turn.circle",
               "Rear.seat.room", "Luggage.room", "Weight", "Origin", "Price")]
    for (v in names(d)) if (is.factor(d[[v]])) d[[v]] <- as.character(d[[v]])
    d$y <- d$Price
    d$Price <- NULL
  } else if (name == "mpg") {         # ggplot2: fuel economy, highway miles per gallon
    d <- as.data.frame(ggplot2::mpg)
    d <- d[, c("manufacturer", "displ", "year", "cyl", "trans", "drv", "cty", "fl",
               "class", "hwy")]
    d$y <- d$hwy
    d$hwy <- NULL
  } else if (name == "birthwt_low") {  # MASS: birth weight below 2.5 kg (class labels)
    d <- MASS::birthwt
    d$bwt <- NULL
    for (v in c("race", "smoke", "ht", "ui")) d[[v]] <- as.character(d[[v]])
    d$y <- d$low
    d$low <- NULL
  } else if (name == "mpg_drv") {     # ggplot2: drive train (f, r, 4) of the mpg table
    d <- as.data.frame(ggplot2::mpg)
    d <- d[, c("manufacturer", "displ", "year", "cyl", "trans", "cty", "hwy", "fl",
               "class", "drv")]
    d$y <- d$drv
    d$drv <- NULL
  } else if (name == "airquality") {  # datasets: New York air quality, NA in Ozone, Solar.R
    d <- airquality
    d$Month <- as.character(d$Month)
    d$y <- d$Temp
    d$Temp <- NULL
  } else stop("unknown table ", name)
  write.csv(d, args[3], row.names = FALSE, na = "NA")
  quit(status = 0)
}
suppressMessages(library(CORElearn))
d <- read.csv(args[2], na.strings = "NA", stringsAsFactors = FALSE)
factors <- if (args[3] == "-") character(0) else strsplit(args[3], ",")[[1]]
for (v in factors) d[[v]] <- factor(d[[v]])
est <- args[4]
k <- as.integer(args[5])
if (startsWith(est, "ReliefF")) d$y <- factor(d$y)
common <- list(formula = y ~ ., data = d, estimator = est, ReliefIterations = 0,
               numAttrProportionEqual = as.numeric(args[7]),
               numAttrProportionDifferent = as.numeric(args[8]))
extra <- if (endsWith(est, "equalK")) list(kNearestEqual = k) else
  list(kNearestExpRank = k, quotientExpRankDistance = as.numeric(args[6]))
t0 <- proc.time()[["elapsed"]]
w <- do.call(attrEval, c(common, extra))
t1 <- proc.time()[["elapsed"]]
cat(sprintf("%.17g", w), sep = "\n")
cat(sprintf("time %.6f\n", t1 - t0))
