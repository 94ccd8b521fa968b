module example.com/pkgz/rest

go 1.26.0
