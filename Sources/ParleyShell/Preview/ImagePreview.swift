import Foundation

/// A small picture of an image drawn with Unicode half blocks: each character cell
/// shows two pixels, the upper as the foreground colour of `▀` and the lower as its
/// background, in 24-bit colour. Transparent pixels show the terminal's background.
///
/// ```swift
/// let image = try PixelImage.decode(data, type: "image/png")
/// for line in ImagePreview.lines(image) { print(line) }
/// ```
public enum ImagePreview {
    public struct Colour: Hashable, Sendable, CustomStringConvertible {
        public var red: UInt8
        public var green: UInt8
        public var blue: UInt8
        public init(_ red: UInt8, _ green: UInt8, _ blue: UInt8) {
            self.red = red
            self.green = green
            self.blue = blue
        }
        public var description: String { "\(red);\(green);\(blue)" }
    }

    /// One character cell: its upper and lower pixel, nil where transparent.
    public struct Cell: Hashable, Sendable {
        public var top: Colour?
        public var bottom: Colour?
        public init(top: Colour?, bottom: Colour?) {
            self.top = top
            self.bottom = bottom
        }
    }

    /// The image scaled (never enlarged) to fit `columns` × `rows` cells, keeping its
    /// proportions: a cell is about twice as tall as wide, and holds two pixels.
    public static func cells(_ image: PixelImage, columns: Int = 48, rows: Int = 16) -> [[Cell]] {
        guard image.width > 0, image.height > 0, columns > 0, rows > 0 else { return [] }
        let scale = min(1, Double(columns) / Double(image.width), Double(rows * 2) / Double(image.height))
        let width = max(1, Int((Double(image.width) * scale).rounded()))
        let height = max(1, Int((Double(image.height) * scale).rounded()))
        let pixels = resample(image, width: width, height: height)
        return stride(from: 0, to: height, by: 2).map { y in
            (0..<width).map { x in
                Cell(top: pixels[y * width + x], bottom: y + 1 < height ? pixels[(y + 1) * width + x] : nil)
            }
        }
    }

    /// The cells as terminal lines, each ending with a colour reset.
    public static func lines(_ image: PixelImage, columns: Int = 48, rows: Int = 16) -> [String] {
        cells(image, columns: columns, rows: rows).map(line)
    }

    public static func line(_ cells: [Cell]) -> String {
        var line = ""
        for cell in cells {
            switch (cell.top, cell.bottom) {
            case (let top?, let bottom?): line += "\u{1B}[38;2;\(top);48;2;\(bottom)m▀"
            case (let top?, nil): line += "\u{1B}[0;38;2;\(top)m▀"
            case (nil, let bottom?): line += "\u{1B}[0;38;2;\(bottom)m▄"
            case (nil, nil): line += "\u{1B}[0m "
            }
        }
        return line + "\u{1B}[0m"
    }

    /// Box filter: each new pixel is the alpha-weighted mean of the source pixels it
    /// covers; it is transparent when less than half of them is opaque.
    private static func resample(_ image: PixelImage, width: Int, height: Int) -> [Colour?] {
        var result = [Colour?](repeating: nil, count: width * height)
        for y in 0..<height {
            let y0 = y * image.height / height
            let y1 = max(y0 + 1, (y + 1) * image.height / height)
            for x in 0..<width {
                let x0 = x * image.width / width
                let x1 = max(x0 + 1, (x + 1) * image.width / width)
                var sums = (red: 0, green: 0, blue: 0, alpha: 0)
                for sy in y0..<y1 {
                    var index = (sy * image.width + x0) * 4
                    for _ in x0..<x1 {
                        let alpha = Int(image.rgba[index + 3])
                        sums.red += Int(image.rgba[index]) * alpha
                        sums.green += Int(image.rgba[index + 1]) * alpha
                        sums.blue += Int(image.rgba[index + 2]) * alpha
                        sums.alpha += alpha
                        index += 4
                    }
                }
                let area = (y1 - y0) * (x1 - x0)
                guard sums.alpha * 2 >= area * 255, sums.alpha > 0 else { continue }
                result[y * width + x] = Colour(
                    UInt8(sums.red / sums.alpha), UInt8(sums.green / sums.alpha), UInt8(sums.blue / sums.alpha))
            }
        }
        return result
    }
}
