module github.com/mtibben/confusables

go 1.26.0

require golang.org/x/text v0.43.0
