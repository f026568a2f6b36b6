module olmv1.local/examples/webhook-operator

go 1.26.0
