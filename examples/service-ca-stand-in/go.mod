module olmv1.local/examples/service-ca-stand-in

go 1.26.0
