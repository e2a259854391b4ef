package trial_test

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpsec/mcpsec/internal/trial"
)

// Reading a log whose last record was cut short by a crash: the complete
// records come out, the torn line becomes a warning.
func ExampleReader() {
	log := `{"trial_id":"a1","model":"control:reference","control":true,"task":"calc_invoice","attack_class":"none","payload_id":"none","register":"none","objective":"none","arm":"none","seed":1,"error":null,"attempted":false,"realized":false,"blocked":false,"canary":false,"objective_met":false,"utility":true,"side_effect":false,"exposed":false,"truncated":false,"trace":"traces/a1.jsonl"}
{"trial_id":"b2","model":"contr`
	rd := trial.NewReader(strings.NewReader(log), "trials.jsonl")
	for {
		v, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s utility=%v\n", v.ID, v.Flags&trial.FlagUtility != 0)
	}
	fmt.Println(rd.Warnings()[0][:48])
	// Output:
	// a1 utility=true
	// trials.jsonl line 2: truncated last line ignored
}
