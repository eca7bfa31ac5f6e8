# The forecast bench's data and its reference figures, made once with R:
#   Rscript bench/forecast/reference.R && npx biome format --write bench/forecast   (from the root)
# Debian: apt-get install -y --no-install-recommends r-base-core r-cran-forecast
#
# Writes bench/forecast/series.json: real public series from R's `datasets` package, values as R
# holds them, with their frequency (the season length) and first period; and
# bench/forecast/reference.json: forecast::ets (automatic model choice, damped trend allowed, as
# ets() chooses by default) fitted at every rolling origin the bench uses, with its point forecast
# and 80 % interval 1 to 3 periods ahead. The bench scores these with the same code as its own
# candidates, so the two tables differ only by the model.
library(forecast)

names <- c("AirPassengers", "nottem", "UKDriverDeaths", "co2", "UKgas", "JohnsonJohnson",
           "ldeaths", "mdeaths", "fdeaths", "USAccDeaths", "austres", "Nile")
# The last 12 points are forecast 1 and 3 periods ahead: origins from n - 14 to n - 1.
WINDOW <- 12
HORIZON <- 3

num <- function(x) paste(sprintf("%.15g", x), collapse = ",")

series_json <- character(0)
reference_json <- character(0)
for (name in names) {
  y <- get(name, envir = as.environment("package:datasets"))
  values <- as.numeric(y)
  n <- length(values)
  m <- frequency(y)
  series_json <- c(series_json, sprintf(
    '{"name":"%s","source":"R datasets::%s","frequency":%d,"start":[%s],"values":[%s]}',
    name, name, m, num(start(y)), num(values)))
  origins <- character(0)
  for (origin in (n - WINDOW - HORIZON + 1):(n - 1)) {
    train <- ts(values[1:origin], start = start(y), frequency = m)
    fit <- ets(train)
    fc <- forecast(fit, h = HORIZON, level = 80)
    origins <- c(origins, sprintf(
      '{"origin":%d,"method":"%s","mean":[%s],"lower":[%s],"upper":[%s]}',
      origin, fit$method, num(fc$mean), num(fc$lower[, 1]), num(fc$upper[, 1])))
  }
  reference_json <- c(reference_json, sprintf('{"name":"%s","origins":[%s]}', name,
                                              paste(origins, collapse = ",")))
  cat(name, n, m, "\n")
}

header <- sprintf('"generatedBy":"bench/forecast/reference.R","r":"%s","forecast":"%s"',
                  R.version.string, as.character(packageVersion("forecast")))
writeLines(sprintf('{%s,"series":[\n%s\n]}', header, paste(series_json, collapse = ",\n")),
           "bench/forecast/series.json")
writeLines(sprintf('{%s,"window":%d,"horizon":%d,"ets":[\n%s\n]}', header, WINDOW, HORIZON,
                   paste(reference_json, collapse = ",\n")),
           "bench/forecast/reference.json")
