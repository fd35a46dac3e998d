package cfg

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strings"
)

// Function is a graph with the names and texts a rendering shows.
type Function struct {
	Name  string
	Graph *Graph
	Lines []string // per instruction of Graph.Insts: its listing text
}

// jsonBlock is a block in the JSON rendering.
type jsonBlock struct {
	ID    int        `json:"id"`
	Start uint64     `json:"start"` // address of the first instruction
	End   uint64     `json:"end"`   // address of the last instruction
	Insts []jsonInst `json:"instructions"`
	Succs []jsonEdge `json:"successors"`
}

type jsonInst struct {
	Addr uint64 `json:"address"`
	Text string `json:"text"`
}

type jsonEdge struct {
	To   int    `json:"to"`
	Kind string `json:"kind"` // "jump" or "fallthrough"
}

type jsonFunction struct {
	Name   string      `json:"function"`
	Blocks []jsonBlock `json:"blocks"`
}

// WriteJSON writes the functions' graphs as a JSON array of
// {"function", "blocks": [{"id", "start", "end", "instructions": [{"address",
// "text"}], "successors": [{"to", "kind"}]}]} (docs/listing-json.md).
func WriteJSON(w io.Writer, fns []Function) error {
	out := make([]jsonFunction, 0, len(fns))
	for _, f := range fns {
		jf := jsonFunction{Name: f.Name, Blocks: []jsonBlock{}}
		g := f.Graph
		for k, b := range g.Blocks {
			jb := jsonBlock{ID: k, Start: g.Insts[b.Start].Addr, End: g.Insts[b.End-1].Addr, Succs: []jsonEdge{}}
			for i := b.Start; i < b.End; i++ {
				jb.Insts = append(jb.Insts, jsonInst{g.Insts[i].Addr, f.Lines[i]})
			}
			for _, e := range b.Succs {
				kind := "jump"
				if e.Fall {
					kind = "fallthrough"
				}
				jb.Succs = append(jb.Succs, jsonEdge{e.To, kind})
			}
			jf.Blocks = append(jf.Blocks, jb)
		}
		out = append(out, jf)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(out)
}

// WriteDOT writes the graphs in plain DOT: one cluster per function, one
// box per block holding its instructions.
func WriteDOT(w io.Writer, fns []Function) error {
	var b strings.Builder
	b.WriteString("digraph cfg {\nnode [shape=box,fontname=\"Courier\",fontsize=10];\n")
	for fi, f := range fns {
		fmt.Fprintf(&b, "subgraph \"cluster_%s\" {\nlabel=%q;\n", f.Name, f.Name)
		g := f.Graph
		for k, bl := range g.Blocks {
			var text strings.Builder
			for i := bl.Start; i < bl.End; i++ {
				fmt.Fprintf(&text, "%04x: %s\\l", g.Insts[i].Addr, dotText(f.Lines[i]))
			}
			fmt.Fprintf(&b, "\"f%db%d\" [label=\"%s\"];\n", fi, k, text.String())
		}
		for k, bl := range g.Blocks {
			for _, e := range bl.Succs {
				style := "solid"
				if e.Fall {
					style = "dashed"
				}
				fmt.Fprintf(&b, "\"f%db%d\" -> \"f%db%d\" [style=%s];\n", fi, k, fi, e.To, style)
			}
		}
		b.WriteString("}\n")
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func dotText(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
}

// SVG layout: blocks stacked in address order in one column, jump edges
// routed in lanes to the right (one lane per edge), fall-through edges
// straight down.
const (
	svgCharW  = 7.2
	svgLineH  = 14
	svgPad    = 6
	svgGap    = 22
	svgLaneW  = 10
	svgMargin = 20
)

// WriteSVG draws the graphs as one SVG picture.
func WriteSVG(w io.Writer, fns []Function) error {
	var body strings.Builder
	y := float64(svgMargin)
	width := 0.0
	for _, f := range fns {
		g := f.Graph
		fmt.Fprintf(&body, "<text x=\"%d\" y=\"%.1f\" font-weight=\"bold\">%s</text>\n", svgMargin, y+svgLineH, html.EscapeString(f.Name))
		y += svgLineH + svgPad
		boxW := 0.0
		for i := range g.Insts {
			boxW = max(boxW, float64(len(f.Lines[i])+6)*svgCharW+2*svgPad)
		}
		top := make([]float64, len(g.Blocks))
		bottom := make([]float64, len(g.Blocks))
		for k, bl := range g.Blocks {
			top[k] = y
			h := float64(bl.End-bl.Start)*svgLineH + 2*svgPad
			bottom[k] = y + h
			fmt.Fprintf(&body, "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"4\" fill=\"#f8f8f8\" stroke=\"#444\"/>\n", svgMargin, y, boxW, h)
			for i := bl.Start; i < bl.End; i++ {
				ty := y + svgPad + float64(i-bl.Start+1)*svgLineH - 3
				fmt.Fprintf(&body, "<text x=\"%d\" y=\"%.1f\">%04x: %s</text>\n", svgMargin+svgPad, ty, g.Insts[i].Addr, html.EscapeString(f.Lines[i]))
			}
			y += h + svgGap
		}
		lane := 0
		right := float64(svgMargin) + boxW
		for k, bl := range g.Blocks {
			for _, e := range bl.Succs {
				if e.Fall && e.To == k+1 {
					fmt.Fprintf(&body, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\" marker-end=\"url(#arrow)\"/>\n",
						float64(svgMargin)+boxW/2, bottom[k], float64(svgMargin)+boxW/2, top[e.To])
					continue
				}
				lane++
				x := right + float64(lane*svgLaneW)
				y1, y2 := bottom[k]-svgPad, top[e.To]+svgPad
				fmt.Fprintf(&body, "<polyline points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"none\" stroke=\"#c33\" marker-end=\"url(#arrow)\"/>\n",
					right, y1, x, y1, x, y2, right, y2)
			}
		}
		width = max(width, right+float64((lane+1)*svgLaneW)+svgMargin)
		y += svgGap
	}
	_, err := fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="monospace" font-size="12">
<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>
<rect width="100%%" height="100%%" fill="white"/>
%s</svg>
`, width, y+svgMargin, body.String())
	return err
}
