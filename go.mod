module github.com/rsbag/rsbag

go 1.26

require (
	github.com/chromedp/chromedp v0.23.0
	github.com/coder/websocket v1.8.14
	github.com/foxglove/go-rosbag v0.0.7
	github.com/foxglove/mcap/go/mcap v1.7.4
	github.com/google/gousb v1.1.3
	github.com/klauspost/compress v1.16.7
	github.com/pierrec/lz4/v4 v4.1.33
)

require (
	github.com/chromedp/cdproto v0.159.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
