from floor_common import chart, slider

slider()
chart({"data": [{"type": "scatter", "x": [0, 1], "y": [0, 1]}], "layout": {"height": 300}})
