module olmv1.local/examples/olmtest-webhook-operator

go 1.26.0
