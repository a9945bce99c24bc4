import Testing

@testable import ParleyIRC

/// `s/old/new/` as IRC users type it: which lines are corrections, and what they make of
/// a text.
@Suite struct SedCorrectionTests {
    @Test func correctionsAreReadWithOrWithoutTheLastSlash() {
        #expect(SedCorrection("s/teh/the/") == SedCorrection(old: "teh", new: "the", everywhere: false))
        #expect(SedCorrection("s/teh/the") == SedCorrection(old: "teh", new: "the", everywhere: false))
        #expect(SedCorrection("s/a/b/g") == SedCorrection(old: "a", new: "b", everywhere: true))
        #expect(SedCorrection("s/and\\/or/or/") == SedCorrection(old: "and/or", new: "or", everywhere: false))
        #expect(SedCorrection("s/ typo//") == SedCorrection(old: " typo", new: "", everywhere: false))
    }

    @Test func otherLinesAreNotCorrections() {
        for line in ["s/he said so", "s//x/", "s/a/b/c/", "s/a/b/gx", "so/a/b/", "hello", "s/"] {
            #expect(SedCorrection(line) == nil, "\(line)")
        }
    }

    @Test func aCorrectionReplacesTheFirstPlaceOrEveryPlaceAndOnlyWhenItApplies() throws {
        let once = try #require(SedCorrection("s/o/0/"))
        #expect(once.applied(to: "foo boo") == "f0o boo")
        let every = try #require(SedCorrection("s/o/0/g"))
        #expect(every.applied(to: "foo boo") == "f00 b00")
        #expect(once.applied(to: "nothing here") == "n0thing here")
        #expect(once.applied(to: "abc") == nil, "nothing to correct: the line goes as it is")
        #expect(SedCorrection("s/all of it//")?.applied(to: "all of it") == nil, "a correction never empties a message")
    }
}
