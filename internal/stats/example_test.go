package stats_test

import (
	"fmt"

	"github.com/mcpsec/mcpsec/internal/stats"
)

// The method's four hand-worked cases.
func ExampleComputeCases() {
	benign := map[string]bool{"T1": true, "T2": true, "T3": true, "T4": false}
	cases := []stats.Case{
		{UserTask: "T1", InjectionGoal: "G1", Utility: true},
		{UserTask: "T2", InjectionGoal: "G1", AttackSuccess: true, SideEffect: true, Exposed: true},
		{UserTask: "T3", InjectionGoal: "G1", Utility: true, AttackSuccess: true, SideEffect: true, Exposed: true},
		{UserTask: "T4", InjectionGoal: "G1"},
	}
	m, err := stats.ComputeCases(benign, cases)
	if err != nil {
		panic(err)
	}
	fmt.Printf("benign %.2f raw %.2f asr %.2f secure %.2f\n", m.BenignUtility, m.RawAttackedUtility, m.TargetedASR, m.SecureUtilityInScope)
	fmt.Printf("asr | exposed = %.2f over %d cases\n", *m.ConditionalASRExposed, m.ExposedCases)
	// Output:
	// benign 0.75 raw 0.50 asr 0.50 secure 0.25
	// asr | exposed = 1.00 over 2 cases
}

// Equal rates can hide one broken and one fixed item.
func ExampleComparePaired() {
	ref := map[string]bool{"T1": true, "T2": true, "T3": true, "T4": false}
	def := map[string]bool{"T1": true, "T2": false, "T3": true, "T4": true}
	p, err := stats.ComparePaired(ref, def)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%+v net %.2f p %.2f\n", p.Counts, p.NetEffect, p.McNemarP)
	// Output:
	// {KeptSuccess:2 Lost:1 Gained:1 KeptFailure:0} net 0.00 p 1.00
}

func ExampleWilson() {
	w := stats.Wilson(0, 20)
	fmt.Printf("0/20: [%.3f, %.3f]\n", w.Low, w.High)
	// Output:
	// 0/20: [0.000, 0.161]
}
