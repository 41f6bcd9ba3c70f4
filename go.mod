module github.com/covpipe/covpipe

go 1.26.0

require (
	github.com/disintegration/imaging v1.6.2
	golang.org/x/image v0.47.0
	gonum.org/v1/gonum v0.17.0
)
