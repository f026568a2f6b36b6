module example.com/example-operator

go 1.24
